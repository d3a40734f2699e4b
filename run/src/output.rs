//! The ranks' stdout and stderr, forwarded line by line in simulated-time order.
//!
//! Each rank writes into two files of its own; at every call its runtime says how far
//! they were written. The [`crate::scheduler`] flushes a rank's new lines when it carries
//! out that call, which happens in (simulated time, rank) order, so the interleaving of
//! the ranks' lines is the same on every run.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

struct Stream {
    path: PathBuf,
    done: u64,
    partial: Vec<u8>,
}

/// The ranks' output files and where they go.
pub struct Output {
    ranks: Vec<[Stream; 2]>,
    sinks: [Box<dyn Write + Send>; 2],
}

impl Output {
    /// Output of the ranks whose files are `files[r] = (stdout, stderr)`, forwarded to
    /// `out` and `err`.
    pub fn new(
        files: Vec<(PathBuf, PathBuf)>,
        out: Box<dyn Write + Send>,
        err: Box<dyn Write + Send>,
    ) -> Output {
        let stream = |path| Stream {
            path,
            done: 0,
            partial: Vec::new(),
        };
        Output {
            ranks: files
                .into_iter()
                .map(|(o, e)| [stream(o), stream(e)])
                .collect(),
            sinks: [out, err],
        }
    }

    /// Forwards the whole lines rank `r` wrote up to `out` and `err` bytes.
    pub fn flush(&mut self, r: usize, out: u64, err: u64) {
        for (i, upto) in [(0, out), (1, err)] {
            let s = &mut self.ranks[r][i];
            let new = read_range(s, upto);
            s.partial.extend_from_slice(&new);
            if let Some(last) = s.partial.iter().rposition(|&b| b == b'\n') {
                let lines: Vec<u8> = s.partial.drain(..=last).collect();
                let _ = self.sinks[i].write_all(&lines);
                let _ = self.sinks[i].flush();
            }
        }
    }

    /// Forwards the rest of rank `r`'s output, a last line without its newline included.
    pub fn finish(&mut self, r: usize) {
        self.flush(r, u64::MAX, u64::MAX);
        for i in 0..2 {
            let rest = std::mem::take(&mut self.ranks[r][i].partial);
            if !rest.is_empty() {
                let _ = self.sinks[i].write_all(&rest);
                let _ = self.sinks[i].write_all(b"\n");
                let _ = self.sinks[i].flush();
            }
        }
    }

    /// A message of the platform's own on the error stream.
    pub fn warn(&mut self, line: &str) {
        let _ = writeln!(self.sinks[1], "{line}");
        let _ = self.sinks[1].flush();
    }

    /// Forwards everything every rank has written (the run is ending).
    pub fn flush_all(&mut self) {
        for r in 0..self.ranks.len() {
            self.finish(r);
        }
    }
}

/// The bytes of `s`'s file from where it was read to `upto` (or its end).
fn read_range(s: &mut Stream, upto: u64) -> Vec<u8> {
    let Ok(mut f) = File::open(&s.path) else {
        return Vec::new();
    };
    let end = f.metadata().map_or(0, |m| m.len()).min(upto);
    if end <= s.done || f.seek(SeekFrom::Start(s.done)).is_err() {
        return Vec::new();
    }
    let mut buf = vec![0u8; (end - s.done) as usize];
    if f.read_exact(&mut buf).is_err() {
        return Vec::new();
    }
    s.done = end;
    buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn whole_lines_go_out_up_to_the_offsets_and_the_rest_at_the_end() {
        let dir = std::env::temp_dir().join(format!("peach2-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = vec![(dir.join("0.out"), dir.join("0.err"))];
        std::fs::write(&files[0].0, "one\ntw").unwrap();
        std::fs::write(&files[0].1, "").unwrap();
        let (out, err) = (Sink::default(), Sink::default());
        let mut o = Output::new(files.clone(), Box::new(out.clone()), Box::new(err.clone()));
        o.flush(0, 2, 0);
        assert_eq!(out.0.lock().unwrap().as_slice(), b"");
        o.flush(0, 6, 0);
        assert_eq!(out.0.lock().unwrap().as_slice(), b"one\n");
        std::fs::write(&files[0].0, "one\ntwo\nthree").unwrap();
        o.finish(0);
        assert_eq!(out.0.lock().unwrap().as_slice(), b"one\ntwo\nthree\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
