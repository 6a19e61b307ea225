//! The library's trace lines on stderr, as 3.3.5's `BLOSC_TRACE_ERROR`
//! (and its `_WARNING`/`_INFO` siblings) print them: only when the
//! `BLOSC_TRACE` environment variable is set (to anything), one line each,
//! `[<category>] - <message> (<file>:<line>)`.

use std::cell::Cell;
use std::io::Write;
use std::panic::Location;

thread_local! {
    /// Lines printed by this thread so far.
    static LINES: Cell<u64> = const { Cell::new(0) };
}

/// How many trace lines this thread has printed (compared before and after
/// a call to tell whether it explained itself).
pub(crate) fn lines_so_far() -> u64 {
    LINES.with(Cell::get)
}

/// Whether tracing is on (read at every trace: 3.3.5 calls `getenv` each
/// time, so a program may turn it on while running).
pub(crate) fn enabled() -> bool {
    std::env::var_os("BLOSC_TRACE").is_some()
}

/// The line printed for `message` of `category` ("error", "info", ...)
/// at `at`.
fn line(category: &str, message: &str, at: &Location<'_>) -> String {
    format!("[{category}] - {message} ({}:{})", at.file(), at.line())
}

fn trace(category: &str, message: &str, at: &Location<'_>) {
    if enabled() {
        LINES.with(|n| n.set(n.get() + 1));
        let text = line(category, message, at);
        // One write per line, so lines from several threads do not mix.
        let _ = writeln!(std::io::stderr().lock(), "{text}");
    }
}

/// An `[error]` line for `message`, located at the caller.
#[track_caller]
pub(crate) fn error(message: &str) {
    trace("error", message, Location::caller());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_look_like_3_3_5() {
        let at = Location::caller();
        let l = line("error", "Pointer is null", at);
        assert!(l.starts_with("[error] - Pointer is null ("), "{l}");
        assert!(l.ends_with(&format!(":{})", at.line())), "{l}");
    }
}
