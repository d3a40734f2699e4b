//! The wire between a rank's C runtime (`run/c/peach2_rt.c`) and the platform: frames of
//! little-endian fields over a Unix stream socket.
//!
//! A call: `u32 length` (of what follows), `u32 call code` ([`crate::abi`] `CALL_*`),
//! `u64 stdout offset`, `u64 stderr offset` (how far the rank's output files were
//! written when it made the call: the platform prints output in simulated-time order),
//! then the call's arguments. A reply: `u32 length`, `i32 status`, then the results.
//! Byte strings are a `u64` length and the bytes.

use std::io::{self, Read, Write};

/// Largest frame accepted (a 1 GiB copy and its header).
pub const MAX_FRAME: u32 = (1 << 30) + 4096;

/// Reads the fields of a frame in order; reading past the end is an error.
pub struct Reader {
    buf: Vec<u8>,
    at: usize,
}

/// A frame that ended before a field did.
#[derive(Debug, thiserror::Error)]
#[error("the frame ended before its {0} field")]
pub struct Short(&'static str);

impl Reader {
    /// A reader over a frame's bytes (without the length).
    pub fn new(buf: Vec<u8>) -> Reader {
        Reader { buf, at: 0 }
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], Short> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.buf.len());
        let end = end.ok_or(Short(what))?;
        let s = &self.buf[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// A `u32`.
    pub fn u32(&mut self) -> Result<u32, Short> {
        let b = self.take(4, "u32")?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// An `i32`.
    pub fn i32(&mut self) -> Result<i32, Short> {
        Ok(self.u32()? as i32)
    }

    /// A `u64`.
    pub fn u64(&mut self) -> Result<u64, Short> {
        let b = self.take(8, "u64")?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// An `i64`.
    pub fn i64(&mut self) -> Result<i64, Short> {
        Ok(self.u64()? as i64)
    }

    /// A byte string.
    pub fn bytes(&mut self) -> Result<Vec<u8>, Short> {
        let n = self.u64()?;
        let n = usize::try_from(n).map_err(|_| Short("bytes"))?;
        Ok(self.take(n, "bytes")?.to_vec())
    }
}

/// Builds a frame.
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty frame.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends an `i32`.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.u32(v as u32)
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a byte string.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.u64(b.len() as u64);
        self.buf.extend_from_slice(b);
        self
    }

    /// The frame's bytes.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
}

/// Reads one frame (its length, then that many bytes). `Ok(None)` at a clean end of the
/// stream (the rank closed it between frames).
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {len} bytes"),
        ));
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf)?;
    Ok(Some(buf))
}

/// Writes one frame.
pub fn write_frame(w: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    w.write_all(&(payload.len() as u32).to_le_bytes())?;
    w.write_all(payload)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_short_frames_are_errors() {
        let mut w = Writer::new();
        w.u32(7).i32(-2).u64(1 << 40).bytes(b"abc");
        let mut wire = Vec::new();
        write_frame(&mut wire, &w.into_inner()).unwrap();
        let mut cur = io::Cursor::new(wire);
        let mut r = Reader::new(read_frame(&mut cur).unwrap().unwrap());
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.i32().unwrap(), -2);
        assert_eq!(r.u64().unwrap(), 1 << 40);
        assert_eq!(r.bytes().unwrap(), b"abc");
        assert!(r.u32().is_err());
        assert!(read_frame(&mut cur).unwrap().is_none());
        let mut bad = io::Cursor::new(vec![5, 0, 0, 0, 1]);
        assert!(read_frame(&mut bad).is_err());
    }
}
