//! A progress bar on stderr, drawn only when stderr is a terminal and the
//! run lasts long enough to need one (over half a second).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Do not draw before the run is this old.
const FIRST_DRAW: Duration = Duration::from_millis(500);
/// Redraw at most this often.
const REDRAW: Duration = Duration::from_millis(100);
/// Width of the bar itself.
const BAR: usize = 30;

/// What the counts are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (shown in MiB, with a speed).
    Bytes,
    /// Chunks.
    Chunks,
}

/// A progress bar for one run.
pub struct Progress {
    label: &'static str,
    unit: Unit,
    total: Option<u64>,
    done: u64,
    enabled: bool,
    started: Instant,
    last: Option<Instant>,
}

impl Progress {
    /// A bar for `total` units (unknown when `None`), shown only when
    /// stderr is a terminal and `quiet` is false.
    pub fn new(label: &'static str, unit: Unit, total: Option<u64>, quiet: bool) -> Progress {
        Progress {
            label,
            unit,
            total,
            done: 0,
            enabled: !quiet && std::io::stderr().is_terminal(),
            started: Instant::now(),
            last: None,
        }
    }

    /// Count `n` more units done.
    pub fn add(&mut self, n: u64) {
        self.done += n;
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.started) < FIRST_DRAW || self.last.is_some_and(|t| now.duration_since(t) < REDRAW) {
            return;
        }
        self.last = Some(now);
        let line = render(
            self.label,
            self.unit,
            self.done,
            self.total,
            now.duration_since(self.started),
        );
        let mut e = std::io::stderr().lock();
        let _ = write!(e, "\r{line}\x1b[K");
        let _ = e.flush();
    }

    /// Erase the bar (if it was drawn).
    pub fn finish(&mut self) {
        if self.last.take().is_some() {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[K");
            let _ = e.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

fn mib(n: u64) -> f64 {
    n as f64 / (1024.0 * 1024.0)
}

/// One line of the bar: `label [=====>    ]  45%  12.0/27.0 MiB  85.3 MiB/s`.
pub fn render(label: &str, unit: Unit, done: u64, total: Option<u64>, elapsed: Duration) -> String {
    let mut s = format!("{label} ");
    if let Some(t) = total.filter(|t| *t > 0) {
        let frac = (done as f64 / t as f64).clamp(0.0, 1.0);
        let filled = (frac * BAR as f64) as usize;
        s.push('[');
        s.push_str(&"=".repeat(filled));
        if filled < BAR {
            s.push('>');
            s.push_str(&" ".repeat(BAR - filled - 1));
        }
        s.push_str(&format!("] {:3.0}%  ", frac * 100.0));
    }
    match (unit, total) {
        (Unit::Bytes, Some(t)) => s.push_str(&format!("{:.1}/{:.1} MiB", mib(done), mib(t))),
        (Unit::Bytes, None) => s.push_str(&format!("{:.1} MiB", mib(done))),
        (Unit::Chunks, Some(t)) => s.push_str(&format!("{done}/{t} chunks")),
        (Unit::Chunks, None) => s.push_str(&format!("{done} chunks")),
    }
    let secs = elapsed.as_secs_f64();
    if unit == Unit::Bytes && secs > 0.0 {
        s.push_str(&format!("  {:.1} MiB/s", mib(done) / secs));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let l = render("compress", Unit::Bytes, 1 << 20, Some(4 << 20), Duration::from_secs(1));
        assert_eq!(
            l,
            format!(
                "compress [{}>{}]  25%  1.0/4.0 MiB  1.0 MiB/s",
                "=".repeat(7),
                " ".repeat(22)
            )
        );
        let l = render("verify", Unit::Chunks, 3, Some(3), Duration::from_secs(1));
        assert_eq!(l, format!("verify [{}] 100%  3/3 chunks", "=".repeat(30)));
        let l = render("compress", Unit::Bytes, 3 << 20, None, Duration::from_secs(2));
        assert_eq!(l, "compress 3.0 MiB  1.5 MiB/s");
        // Not a terminal under the test harness: nothing is drawn.
        let mut p = Progress::new("x", Unit::Chunks, Some(1), false);
        p.add(1);
        p.finish();
    }
}
