//! The Verilated core, stepped from Rust through the generated C++ shim.
//!
//! Only `eval` crosses the FFI per step: ports are read and written through a table of
//! pointers to the model's port storage (`VlWide<4>` words for 128-bit ports, word 0 =
//! bits 31:0). Every call into the model is wrapped in the shim's `try`/`catch`, so a
//! Verilator fatal error becomes a [`SimError::Verilator`], never an abort. Models made
//! from one [`VlContext`] share one `VerilatedContext`, which a VCD spanning them needs.

use crate::error::SimError;
use crate::pins::{PortDecl, PORTS};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;
use std::sync::Arc;

// The runtime is a separate static library; naming the crate makes rustc link it.
use verilated_rt as _;

extern "C" {
    fn p2_context_new(out: *mut *mut c_void, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_context_delete(ctx: *mut c_void);
    fn p2_context_threads(ctx: *mut c_void, n: u32, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_model_new(
        ctx: *mut c_void,
        name: *const c_char,
        out: *mut *mut c_void,
        err: *mut c_char,
        errlen: usize,
    ) -> c_int;
    fn p2_model_delete(model: *mut c_void);
    fn p2_model_eval(model: *mut c_void, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_model_eval_clocked(model: *mut c_void, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_has_clocked_eval() -> c_int;
    fn p2_model_final(model: *mut c_void, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_port_count() -> usize;
    fn p2_model_ports(model: *mut c_void, table: *mut *mut c_void);
    fn p2_model_state(model: *mut c_void, len: *mut usize) -> *const c_void;
    fn p2_vcd_new(out: *mut *mut c_void, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_vcd_add(
        vcd: *mut c_void,
        model: *mut c_void,
        depth: c_int,
        err: *mut c_char,
        errlen: usize,
    ) -> c_int;
    fn p2_vcd_open(vcd: *mut c_void, path: *const c_char, err: *mut c_char, errlen: usize)
        -> c_int;
    fn p2_vcd_dump(vcd: *mut c_void, time: u64, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_vcd_close(vcd: *mut c_void, err: *mut c_char, errlen: usize) -> c_int;
    fn p2_vcd_delete(vcd: *mut c_void);
}

const ERR_LEN: usize = 512;

/// Runs a shim call that reports errors through a message buffer.
fn checked(what: &str, f: impl FnOnce(*mut c_char, usize) -> c_int) -> Result<(), SimError> {
    let mut buf = [0 as c_char; ERR_LEN];
    if f(buf.as_mut_ptr(), ERR_LEN) == 0 {
        return Ok(());
    }
    // SAFETY: the shim always writes a NUL-terminated string into the buffer on failure.
    let msg = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    Err(SimError::Verilator {
        chip: what.to_string(),
        message: msg.to_string_lossy().into_owned(),
    })
}

fn c_string(what: &str, s: &str) -> Result<CString, SimError> {
    CString::new(s).map_err(|_| SimError::Verilator {
        chip: what.to_string(),
        message: format!("name {s:?} contains a NUL byte"),
    })
}

/// Writes `v` at `p`; true if the stored value changed.
///
/// # Safety
/// `p` must be valid for reads and writes of a `T`.
#[inline]
unsafe fn store<T: PartialEq + Copy>(p: *mut T, v: T) -> bool {
    let changed = *p != v;
    *p = v;
    changed
}

/// One `VerilatedContext` (time, tracing switch, error state) shared by models.
pub struct VlContext {
    ptr: *mut c_void,
}

impl VlContext {
    /// A new context with tracing enabled (it must be on before models are created).
    pub fn new() -> Result<Arc<Self>, SimError> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: the shim writes a valid pointer on success.
        checked("context", |e, l| unsafe { p2_context_new(&mut ptr, e, l) })?;
        Ok(Arc::new(Self { ptr }))
    }

    /// Sets the context's simulation thread count (before any model is created; 0 is a
    /// Verilator fatal error, reported as [`SimError::Verilator`]).
    pub fn set_threads(&self, n: u32) -> Result<(), SimError> {
        // SAFETY: live context; the shim catches the runtime's fatal error.
        checked("context", |e, l| unsafe {
            p2_context_threads(self.ptr, n, e, l)
        })
    }
}

// SAFETY: a `VerilatedContext` is shared by models that are evaluated on different
// threads; evaluation only reads it (its mutable parts are guarded by its own mutex),
// and it is created and deleted by one owner.
unsafe impl Send for VlContext {}
// SAFETY: see `Send`.
unsafe impl Sync for VlContext {}

impl Drop for VlContext {
    fn drop(&mut self) {
        // SAFETY: created by p2_context_new; every model holds an Arc, so none is left.
        unsafe { p2_context_delete(self.ptr) }
    }
}

/// Owns one model instance; shared by the core and any VCD that traces it.
struct ModelHandle {
    ptr: *mut c_void,
    _ctx: Arc<VlContext>,
}

// SAFETY: a model is evaluated by one thread at a time (its `VlCore` is borrowed
// mutably for that); the handle only deletes it when the last owner goes.
unsafe impl Send for ModelHandle {}
// SAFETY: shared handles (core and VCD) never call into the model concurrently: the
// VCD dumps only while no chip evaluates.
unsafe impl Sync for ModelHandle {}

impl Drop for ModelHandle {
    fn drop(&mut self) {
        // SAFETY: created by p2_model_new; the context outlives it (held above).
        unsafe { p2_model_delete(self.ptr) }
    }
}

/// One Verilated `peach2_core`.
pub struct VlCore {
    name: String,
    handle: Arc<ModelHandle>,
    ports: Vec<*mut u8>,
    decls: &'static [PortDecl],
    failed: Option<String>,
    /// An input other than the clock changed since the last full eval (or none ran yet).
    inputs_changed: bool,
}

// SAFETY: the port pointers address storage of the model this core owns, so moving
// the core to another thread moves the only user of that storage with it.
unsafe impl Send for VlCore {}

impl VlCore {
    /// A core named `name` (its scope in a VCD) in context `ctx`.
    pub fn new(ctx: &Arc<VlContext>, name: &str) -> Result<Self, SimError> {
        let cname = c_string(name, name)?;
        let mut ptr = std::ptr::null_mut();
        // SAFETY: the context pointer is live; the shim writes a valid model pointer.
        checked(name, |e, l| unsafe {
            p2_model_new(ctx.ptr, cname.as_ptr(), &mut ptr, e, l)
        })?;
        let handle = Arc::new(ModelHandle {
            ptr,
            _ctx: Arc::clone(ctx),
        });
        // SAFETY: plain query.
        let n = unsafe { p2_port_count() };
        assert_eq!(n, PORTS.len(), "shim and port table come from one build");
        let mut table = vec![std::ptr::null_mut::<c_void>(); n];
        // SAFETY: the table has room for every port.
        unsafe { p2_model_ports(handle.ptr, table.as_mut_ptr()) };
        Ok(Self {
            name: name.to_string(),
            handle,
            ports: table.into_iter().map(|p| p.cast::<u8>()).collect(),
            decls: &PORTS,
            failed: None,
            inputs_changed: true,
        })
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes input `pin` (value masked to the port's width). A new value makes the next
    /// eval a full one.
    #[inline]
    pub fn set(&mut self, pin: usize, value: u128) {
        if self.write(pin, value) {
            self.inputs_changed = true;
        }
    }

    /// Writes the clock input `pin`: a clock change alone lets [`VlCore::eval_clocked`]
    /// skip the input region. Only for the clock; every other input goes through
    /// [`VlCore::set`].
    #[inline]
    pub fn set_clock(&mut self, pin: usize, value: bool) {
        self.write(pin, u128::from(value));
    }

    /// Stores `value` (masked) into `pin`; true if the stored value changed.
    #[inline]
    fn write(&mut self, pin: usize, value: u128) -> bool {
        let w = self.decls[pin].width;
        let p = self.ports[pin];
        // SAFETY: the pointer addresses this port's storage, whose C type follows the
        // width (CData/SData/IData/QData, or VlWide<4> words).
        unsafe {
            match w {
                1..=8 => store(p, (value as u8) & (((1u16 << w) - 1) as u8)),
                9..=16 => store(p.cast(), (value as u16) & (((1u32 << w) - 1) as u16)),
                17..=32 => store(p.cast(), (value as u32) & (((1u64 << w) - 1) as u32)),
                33..=64 => store(p.cast(), (value as u64) & (u64::MAX >> (64 - w))),
                _ => {
                    let words = p as *mut u32;
                    let v = value & (u128::MAX >> (128 - w));
                    let mut changed = false;
                    for k in 0..(w as usize).div_ceil(32) {
                        changed |= store(words.add(k), (v >> (32 * k)) as u32);
                    }
                    changed
                }
            }
        }
    }

    /// Reads `pin`.
    #[inline]
    pub fn get(&self, pin: usize) -> u128 {
        let w = self.decls[pin].width;
        let p = self.ports[pin];
        // SAFETY: as in `set`.
        unsafe {
            match w {
                1..=8 => u128::from(*p),
                9..=16 => u128::from(*(p as *const u16)),
                17..=32 => u128::from(*(p as *const u32)),
                33..=64 => u128::from(*(p as *const u64)),
                _ => {
                    let words = p as *const u32;
                    (0..(w as usize).div_ceil(32)).fold(0u128, |acc, k| {
                        acc | (u128::from(*words.add(k)) << (32 * k))
                    })
                }
            }
        }
    }

    /// Evaluates the model (after changing inputs or the clock).
    #[inline]
    pub fn eval(&mut self) -> Result<(), SimError> {
        self.call_eval(p2_model_eval)?;
        self.inputs_changed = false;
        Ok(())
    }

    fn call_eval(
        &mut self,
        f: unsafe extern "C" fn(*mut c_void, *mut c_char, usize) -> c_int,
    ) -> Result<(), SimError> {
        if let Some(m) = &self.failed {
            return Err(SimError::Verilator {
                chip: self.name.clone(),
                message: format!("model stopped earlier: {m}"),
            });
        }
        let ptr = self.handle.ptr;
        // SAFETY: live model; the shim catches every C++ exception.
        let r = checked(&self.name, |e, l| unsafe { f(ptr, e, l) });
        if let Err(SimError::Verilator { message, .. }) = &r {
            self.failed = Some(message.clone());
        }
        r
    }

    /// Evaluates after a clock change: when no other input changed since the last full
    /// eval, only the clocked regions run, because the input region's results still hold
    /// (no logic in it reads the clock); otherwise a full [`VlCore::eval`]. The results
    /// are the same either way.
    #[inline]
    pub fn eval_clocked(&mut self) -> Result<(), SimError> {
        if self.inputs_changed {
            return self.eval();
        }
        self.call_eval(p2_model_eval_clocked)
    }

    /// Whether the build derived the clocked-only eval from the model (if not,
    /// [`VlCore::eval_clocked`] always runs the full eval).
    pub fn has_clocked_eval() -> bool {
        // SAFETY: plain query.
        unsafe { p2_has_clocked_eval() != 0 }
    }

    /// Runs the model's `final` blocks.
    pub fn finish(&mut self) -> Result<(), SimError> {
        let ptr = self.handle.ptr;
        // SAFETY: live model; exceptions are caught in the shim.
        checked(&self.name, |e, l| unsafe { p2_model_final(ptr, e, l) })
    }

    /// The model's whole state (its root structure) as bytes, for detecting a chip that
    /// has reached a fixed point.
    pub fn state(&self) -> &[u8] {
        let mut len = 0usize;
        // SAFETY: the root structure lives as long as the model; `len` is its size.
        unsafe {
            let p = p2_model_state(self.handle.ptr, &mut len);
            std::slice::from_raw_parts(p.cast::<u8>(), len)
        }
    }

    /// Poisons the model as if it had raised `message` (tests of the error path).
    pub fn fail(&mut self, message: &str) {
        self.failed = Some(message.to_string());
    }
}

/// A VCD file of the internal signals of some models of one context.
pub struct VcdTrace {
    ptr: *mut c_void,
    _models: Vec<Arc<ModelHandle>>,
    open: bool,
}

impl VcdTrace {
    /// Traces `cores` (all from one context) `depth` levels deep into `path`.
    pub fn open(cores: &[&VlCore], depth: i32, path: &Path) -> Result<Self, SimError> {
        let mut ptr = std::ptr::null_mut();
        // SAFETY: the shim writes a valid pointer on success.
        checked("vcd", |e, l| unsafe { p2_vcd_new(&mut ptr, e, l) })?;
        let mut t = Self {
            ptr,
            _models: cores.iter().map(|c| Arc::clone(&c.handle)).collect(),
            open: false,
        };
        for c in cores {
            // SAFETY: live trace and model; tracing was enabled on the context.
            checked(&c.name, |e, l| unsafe {
                p2_vcd_add(t.ptr, c.handle.ptr, depth, e, l)
            })?;
        }
        let p = c_string("vcd", &path.to_string_lossy())?;
        // SAFETY: live trace, NUL-terminated path.
        checked("vcd", |e, l| unsafe {
            p2_vcd_open(t.ptr, p.as_ptr(), e, l)
        })?;
        t.open = true;
        Ok(t)
    }

    /// Writes the traced signals' changes at `time` (in clock half-periods or any unit).
    pub fn dump(&mut self, time: u64) -> Result<(), SimError> {
        let ptr = self.ptr;
        // SAFETY: live, open trace.
        checked("vcd", |e, l| unsafe { p2_vcd_dump(ptr, time, e, l) })
    }

    /// Flushes and closes the file.
    pub fn close(&mut self) -> Result<(), SimError> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let ptr = self.ptr;
        // SAFETY: live trace.
        checked("vcd", |e, l| unsafe { p2_vcd_close(ptr, e, l) })
    }
}

impl Drop for VcdTrace {
    fn drop(&mut self) {
        // Errors on this path have nowhere to go; `close` reports them when called.
        let _ = self.close();
        // SAFETY: created by p2_vcd_new; the traced models are still alive (held).
        unsafe { p2_vcd_delete(self.ptr) }
    }
}
