//! Scalar byte shuffle: the reference kernels. They run on targets without
//! SIMD kernels and finish the items the SIMD kernels leave over.
//!
//! Layout: a block of `n = len / typesize` items becomes `typesize` planes
//! of `n` bytes; plane `j` holds byte `j` of every item. The last
//! `len % typesize` bytes are copied unchanged.

/// Scalar version of [`super::shuffle`] (same contract).
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    super::whole_items(typesize, src, dst, |n, s, d| shuffle_items(typesize, 0, n, s, d));
}

/// Scalar version of [`super::unshuffle`] (same contract).
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    super::whole_items(typesize, src, dst, |n, s, d| unshuffle_items(typesize, 0, n, s, d));
}

/// Items per block: a block's items stay in L1 while its planes are
/// written (or read) one after the other, each as a contiguous run.
const BLOCK: usize = 256;

/// Shuffle items `start..n` of `src` into planes of `n` bytes in `dst`
/// (`typesize >= 2`; both slices hold at least `n * typesize` bytes).
/// Nothing happens when `start >= n`.
pub(crate) fn shuffle_items(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    if start >= n {
        return;
    }
    // Small items: item by item into the few planes (the compiler turns
    // these loops into SIMD code). Larger ones: by blocks.
    match typesize {
        2 => shuffle_fixed::<2>(start, n, src, dst),
        4 => shuffle_fixed::<4>(start, n, src, dst),
        8 => shuffle_blocks::<8>(8, start, n, src, dst),
        16 => shuffle_blocks::<16>(16, start, n, src, dst),
        _ => shuffle_blocks::<0>(typesize, start, n, src, dst),
    }
}

/// Items `done..` of [`super::shuffle_run`] (same contract, checked by it).
pub(crate) fn shuffle_run_items(typesize: usize, n: usize, first: usize, done: usize, run: &[u8], dst: &mut [u8]) {
    for (i, item) in run.chunks_exact(typesize).enumerate().skip(done) {
        for (k, &b) in item.iter().enumerate() {
            dst[k * n + first + i] = b;
        }
    }
}

/// Unshuffle items `start..n` from planes of `n` bytes in `src` (inverse
/// of [`shuffle_items`], same requirements).
pub(crate) fn unshuffle_items(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    if start >= n {
        return;
    }
    match typesize {
        2 => unshuffle_fixed::<2>(start, n, src, dst),
        4 => unshuffle_fixed::<4>(start, n, src, dst),
        8 => unshuffle_blocks::<8>(8, start, n, src, dst),
        16 => unshuffle_blocks::<16>(16, start, n, src, dst),
        _ => unshuffle_blocks::<0>(typesize, start, n, src, dst),
    }
}

/// [`shuffle_items`] by blocks of [`BLOCK`] items. `T` is the item size
/// when known at compile time (so the strided loop gets a constant
/// stride), 0 otherwise.
#[inline(always)]
fn shuffle_blocks<const T: usize>(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    let ts = if T == 0 { typesize } else { T };
    let mut i = start;
    while i < n {
        let end = n.min(i + BLOCK);
        let items = &src[i * ts..end * ts];
        for (j, plane) in dst[..n * ts].chunks_exact_mut(n).enumerate() {
            for (d, s) in plane[i..end].iter_mut().zip(items[j..].iter().step_by(ts)) {
                *d = *s;
            }
        }
        i = end;
    }
}

/// [`unshuffle_items`] by blocks of [`BLOCK`] items (`T` as in
/// [`shuffle_blocks`]).
#[inline(always)]
fn unshuffle_blocks<const T: usize>(typesize: usize, start: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    let ts = if T == 0 { typesize } else { T };
    let mut i = start;
    while i < n {
        let end = n.min(i + BLOCK);
        let items = &mut dst[i * ts..end * ts];
        for (j, plane) in src[..n * ts].chunks_exact(n).enumerate() {
            for (d, s) in items[j..].iter_mut().step_by(ts).zip(&plane[i..end]) {
                *d = *s;
            }
        }
        i = end;
    }
}

/// [`shuffle_items`] item by item for items of `T` bytes (`start < n`).
fn shuffle_fixed<const T: usize>(start: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    let mut planes = dst[..T * n].chunks_exact_mut(n);
    let mut planes: [&mut [u8]; T] = core::array::from_fn(|_| planes.next().unwrap_or_default());
    for (i, item) in src[start * T..n * T].chunks_exact(T).enumerate() {
        for (plane, &b) in planes.iter_mut().zip(item) {
            plane[start + i] = b;
        }
    }
}

/// [`unshuffle_items`] item by item for items of `T` bytes (`start < n`).
fn unshuffle_fixed<const T: usize>(start: usize, n: usize, src: &[u8], dst: &mut [u8]) {
    let mut planes = src[..T * n].chunks_exact(n);
    let planes: [&[u8]; T] = core::array::from_fn(|_| planes.next().unwrap_or_default());
    for (i, item) in dst[start * T..n * T].chunks_exact_mut(T).enumerate() {
        for (b, plane) in item.iter_mut().zip(&planes) {
            *b = plane[start + i];
        }
    }
}
