//! Our chunks decoded by the reference C-Blosc2 3.3.5, and its chunks by
//! us, over drawn parameters. Compared only where the reference round-trips
//! the same input itself: 3.3.5 has known bugs (three-filter pipelines,
//! delta/trunc_prec with partial items, forced block sizes; see
//! `.ci/known_bugs_interop.sh`) that are not ours to match.

use super::input::Input;
use super::params::{draw, Drawn};
use super::reference;
use super::roundtrip::{compress, data, decompress, describe};

/// The fuzz body; does nothing when the reference is absent.
pub fn run(bytes: &[u8]) {
    let Some(reference) = reference::get() else {
        return;
    };
    let mut input = Input::new(bytes);
    let Drawn { cparams, lossy } = draw(&mut input, 1 << 18);
    let src = data(&mut input);
    let typesize = cparams.typesize as usize;
    if lossy && !src.len().is_multiple_of(typesize) {
        return;
    }
    let Ok(theirs) = reference.compress(&cparams, &src) else {
        return;
    };
    let Ok(theirs_back) = reference.decompress(&theirs, src.len()) else {
        return;
    };
    if !lossy && theirs_back != src {
        return;
    }
    let what = describe(&cparams, src.len());
    let ours_of_theirs = decompress(&theirs, src.len(), 1);
    assert!(
        ours_of_theirs.as_ref() == Ok(&theirs_back),
        "we decode the reference's chunk differently: {what}"
    );
    let Ok(ours) = compress(&cparams, &src) else {
        panic!("the reference compresses but we do not: {what}");
    };
    let ours_back =
        decompress(&ours, src.len(), 1).unwrap_or_else(|rc| panic!("our chunk does not decode ({rc}): {what}"));
    let theirs_of_ours = reference.decompress(&ours, src.len());
    assert!(
        theirs_of_ours.as_ref() == Ok(&ours_back),
        "the reference decodes our chunk differently: {what}"
    );
}
