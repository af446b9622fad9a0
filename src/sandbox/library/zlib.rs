//! `zlib.compress` and `zlib.compressobj` through zlib itself (`libz-sys`, built from its C sources into this
//! library with hidden symbols), whose compressed bytes CPython's are: RustPython's zlib is `zlib-rs`, whose
//! deflate chooses its matches its own way, so its output differs in bytes and size at every level but the
//! filtered strategy (a size printed, a checksum or base64 of compressed data). Decompression stays RustPython's
//! (any valid stream decompresses to the same bytes). zlib's memory comes from the sandbox's allocator, so it
//! counts against the session's limit.

use std::alloc::Layout;
use std::os::raw::{c_int, c_uint, c_void};

use libz_sys as z;
use rustpython_vm::builtins::PyBytesRef;
use rustpython_vm::class::PyClassImpl;
use rustpython_vm::common::lock::PyMutex;
use rustpython_vm::function::{ArgBytesLike, OptionalArg};
use rustpython_vm::{pyclass, PyObjectRef, PyPayload, PyRef, PyResult, TryFromObject, VirtualMachine};

const DEFAULT_LEVEL: c_int = z::Z_DEFAULT_COMPRESSION;
const MAX_WBITS: c_int = 15;
const DEF_MEM_LEVEL: c_int = 8;
/// Output grows by this much at a time.
const CHUNK: usize = 16 * 1024;

/// Put them in the sandbox's `zlib` (after its stand-in imported: `prepare`).
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let module = vm.import("zlib", 0)?;
    let class = Compress::make_static_type();
    module.set_attr("Compress", class.to_owned(), vm)?;
    module.set_attr("compress", vm.new_function("compress", compress), vm)?;
    module.set_attr("compressobj", vm.new_function("compressobj", compressobj), vm)?;
    Ok(())
}

/// A deflate stream; boxed, as zlib's state points back at it.
struct Stream(Box<z::z_stream>);

// SAFETY: a stream is used by one thread at a time, behind the `PyMutex` of its object.
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

impl Stream {
    /// A stream set up as `deflateInit2` with these options, or zlib's return code.
    fn new(level: c_int, method: c_int, wbits: c_int, mem_level: c_int, strategy: c_int) -> Result<Self, c_int> {
        let mut stream = fresh_stream();
        // SAFETY: the stream is boxed (its address stays), version and size are this zlib's.
        let code = unsafe {
            z::deflateInit2_(
                &mut *stream,
                level,
                method,
                wbits,
                mem_level,
                strategy,
                z::zlibVersion(),
                std::mem::size_of::<z::z_stream>() as c_int,
            )
        };
        if code == z::Z_OK {
            Ok(Stream(stream))
        } else {
            Err(code)
        }
    }

    /// Deflate all of `input` with `flush`, appending the output to `out`; zlib's error code if it fails.
    fn deflate(&mut self, input: &[u8], flush: c_int, out: &mut Vec<u8>) -> Result<c_int, c_int> {
        let mut offset = 0;
        loop {
            // zlib takes at most a c_uint of input at a time.
            let take = (input.len() - offset).min(c_uint::MAX as usize);
            self.0.next_in = input[offset..].as_ptr() as *mut u8;
            self.0.avail_in = take as c_uint;
            let last = offset + take == input.len();
            let code = loop {
                out.reserve(CHUNK);
                let spare = out.capacity() - out.len();
                let spare = spare.min(c_uint::MAX as usize);
                // SAFETY: `spare` bytes of the vector's spare capacity are writable.
                self.0.next_out = unsafe { out.as_mut_ptr().add(out.len()) };
                self.0.avail_out = spare as c_uint;
                // SAFETY: an initialised stream; input and output point at live buffers of the sizes given.
                let code = unsafe { z::deflate(&mut *self.0, if last { flush } else { z::Z_NO_FLUSH }) };
                let written = spare - self.0.avail_out as usize;
                // SAFETY: zlib wrote `written` bytes there.
                unsafe { out.set_len(out.len() + written) };
                if code != z::Z_OK && code != z::Z_BUF_ERROR && code != z::Z_STREAM_END {
                    return Err(code);
                }
                if self.0.avail_out != 0 || code == z::Z_STREAM_END {
                    break code;
                }
            };
            offset += take - self.0.avail_in as usize;
            if last {
                return Ok(code);
            }
        }
    }

    /// zlib's message for the last error, if it set one.
    fn message(&self) -> Option<String> {
        if self.0.msg.is_null() {
            return None;
        }
        // SAFETY: zlib's messages are static NUL-terminated strings.
        Some(unsafe { std::ffi::CStr::from_ptr(self.0.msg) }.to_string_lossy().into_owned())
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: the stream was initialised; ending it twice is harmless (zlib checks its state).
        unsafe { z::deflateEnd(&mut *self.0) };
    }
}

/// A stream before zlib sets it up: empty, with the sandbox's allocator.
fn fresh_stream() -> Box<z::z_stream> {
    Box::new(z::z_stream {
        next_in: std::ptr::null_mut(),
        avail_in: 0,
        total_in: 0,
        next_out: std::ptr::null_mut(),
        avail_out: 0,
        total_out: 0,
        msg: std::ptr::null_mut(),
        state: std::ptr::null_mut(),
        zalloc: allocate,
        zfree: free,
        opaque: std::ptr::null_mut(),
        data_type: 0,
        adler: 0,
        reserved: 0,
    })
}

/// zlib's allocation, from the sandbox's allocator (counted), with its size in a header for `free`.
unsafe extern "C" fn allocate(_opaque: *mut c_void, items: c_uint, size: c_uint) -> *mut c_void {
    let Some(bytes) = (items as usize).checked_mul(size as usize).and_then(|b| b.checked_add(HEADER)) else {
        return std::ptr::null_mut();
    };
    let Ok(layout) = Layout::from_size_align(bytes, HEADER) else { return std::ptr::null_mut() };
    // SAFETY: a non-zero size (the header's at least).
    let block = unsafe { std::alloc::alloc(layout) };
    if block.is_null() {
        return block as *mut c_void;
    }
    // SAFETY: the block holds the header first.
    unsafe {
        (block as *mut usize).write(bytes);
        block.add(HEADER) as *mut c_void
    }
}

unsafe extern "C" fn free(_opaque: *mut c_void, address: *mut c_void) {
    if address.is_null() {
        return;
    }
    // SAFETY: `address` came from `allocate`, whose header holds the block's size.
    unsafe {
        let block = (address as *mut u8).sub(HEADER);
        let bytes = (block as *const usize).read();
        std::alloc::dealloc(block, Layout::from_size_align_unchecked(bytes, HEADER));
    }
}

const HEADER: usize = 16;

fn zlib_error(vm: &VirtualMachine, message: String) -> rustpython_vm::builtins::PyBaseExceptionRef {
    let class = vm
        .import("zlib", 0)
        .and_then(|module| module.get_attr("error", vm))
        .ok()
        .and_then(|class| class.downcast::<rustpython_vm::builtins::PyType>().ok());
    match class {
        Some(class) => vm.new_exception_msg(class, message.into()),
        None => vm.new_runtime_error(message),
    }
}

/// CPython's words for a zlib error code `while` doing something.
fn failed(
    vm: &VirtualMachine,
    stream: Option<&Stream>,
    code: c_int,
    doing: &str,
) -> rustpython_vm::builtins::PyBaseExceptionRef {
    let message = stream.and_then(Stream::message).or_else(|| match code {
        z::Z_VERSION_ERROR => Some("library version mismatch".to_owned()),
        z::Z_STREAM_ERROR => Some("inconsistent stream state".to_owned()),
        z::Z_DATA_ERROR => Some("invalid input data".to_owned()),
        _ => None,
    });
    match message {
        Some(message) => zlib_error(vm, format!("Error {code} {doing}: {message}")),
        None => zlib_error(vm, format!("Error {code} {doing}")),
    }
}

#[derive(rustpython_vm::FromArgs)]
struct CompressArgs {
    #[pyarg(positional)]
    data: ArgBytesLike,
    #[pyarg(any, default = DEFAULT_LEVEL)]
    level: c_int,
    #[pyarg(any, default = MAX_WBITS)]
    wbits: c_int,
}

/// `zlib.compress(data, /, level=-1, wbits=15)`.
fn compress(args: CompressArgs, vm: &VirtualMachine) -> PyResult<PyBytesRef> {
    let mut stream = match Stream::new(args.level, z::Z_DEFLATED, args.wbits, DEF_MEM_LEVEL, z::Z_DEFAULT_STRATEGY) {
        Ok(stream) => stream,
        Err(z::Z_MEM_ERROR) => return Err(vm.new_memory_error("Out of memory while compressing data")),
        Err(z::Z_STREAM_ERROR) => return Err(zlib_error(vm, "Bad compression level".to_owned())),
        Err(code) => return Err(failed(vm, None, code, "while compressing data")),
    };
    let mut out = Vec::new();
    let done = args.data.with_ref(|data| stream.deflate(data, z::Z_FINISH, &mut out));
    match done {
        Ok(_) => Ok(vm.ctx.new_bytes(out)),
        Err(z::Z_MEM_ERROR) => Err(vm.new_memory_error("Out of memory while compressing data")),
        Err(code) => Err(failed(vm, Some(&stream), code, "while compressing data")),
    }
}

#[derive(rustpython_vm::FromArgs)]
struct CompressObjArgs {
    #[pyarg(any, default = DEFAULT_LEVEL)]
    level: c_int,
    #[pyarg(any, default = z::Z_DEFLATED)]
    method: c_int,
    #[pyarg(any, default = MAX_WBITS)]
    wbits: c_int,
    #[pyarg(any, name = "memLevel", default = DEF_MEM_LEVEL)]
    mem_level: c_int,
    #[pyarg(any, default = z::Z_DEFAULT_STRATEGY)]
    strategy: c_int,
    #[pyarg(any, optional)]
    zdict: OptionalArg<PyObjectRef>,
}

/// `zlib.compressobj(level=-1, method=DEFLATED, wbits=15, memLevel=8, strategy=Z_DEFAULT_STRATEGY, zdict=None)`.
fn compressobj(args: CompressObjArgs, vm: &VirtualMachine) -> PyResult<PyRef<Compress>> {
    let zdict = match args.zdict {
        OptionalArg::Present(zdict) if !vm.is_none(&zdict) => Some(ArgBytesLike::try_from_object(vm, zdict)?),
        _ => None,
    };
    let mut stream = match Stream::new(args.level, args.method, args.wbits, args.mem_level, args.strategy) {
        Ok(stream) => stream,
        Err(z::Z_MEM_ERROR) => return Err(vm.new_memory_error("Can't allocate memory for compression object")),
        Err(z::Z_STREAM_ERROR) => return Err(vm.new_value_error("Invalid initialization option")),
        Err(code) => return Err(failed(vm, None, code, "while creating compression object")),
    };
    if let Some(zdict) = zdict {
        let code = zdict.with_ref(|dictionary| {
            // SAFETY: an initialised stream and a live buffer of that length.
            unsafe {
                z::deflateSetDictionary(
                    &mut *stream.0,
                    dictionary.as_ptr(),
                    dictionary.len().min(c_uint::MAX as usize) as c_uint,
                )
            }
        });
        if code != z::Z_OK {
            return Err(vm.new_value_error("Invalid dictionary"));
        }
    }
    Ok(Compress { stream: PyMutex::new(Some(stream)) }.into_ref(&vm.ctx))
}

#[pyclass(module = "zlib", name = "Compress")]
#[derive(PyPayload)]
struct Compress {
    /// None once flushed with `Z_FINISH` (zlib ended it), as CPython's.
    stream: PyMutex<Option<Stream>>,
}

impl std::fmt::Debug for Compress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Compress")
    }
}

#[pyclass(flags(DISALLOW_INSTANTIATION))]
impl Compress {
    #[pymethod]
    fn compress(zelf: &rustpython_vm::Py<Self>, data: ArgBytesLike, vm: &VirtualMachine) -> PyResult<PyBytesRef> {
        let mut stream = zelf.stream.lock();
        let Some(stream) = stream.as_mut() else {
            return Err(failed(vm, None, z::Z_STREAM_ERROR, "while compressing data"));
        };
        let mut out = Vec::new();
        match data.with_ref(|data| stream.deflate(data, z::Z_NO_FLUSH, &mut out)) {
            Ok(_) => Ok(vm.ctx.new_bytes(out)),
            Err(z::Z_MEM_ERROR) => Err(vm.new_memory_error("Out of memory while compressing data")),
            Err(code) => Err(failed(vm, Some(stream), code, "while compressing data")),
        }
    }

    #[pymethod]
    fn flush(zelf: &rustpython_vm::Py<Self>, mode: OptionalArg<c_int>, vm: &VirtualMachine) -> PyResult<PyBytesRef> {
        let mode = mode.unwrap_or(z::Z_FINISH);
        if mode == z::Z_NO_FLUSH {
            return Ok(vm.ctx.new_bytes(Vec::new()));
        }
        let mut slot = zelf.stream.lock();
        let Some(stream) = slot.as_mut() else {
            return Err(failed(vm, None, z::Z_STREAM_ERROR, "while flushing"));
        };
        let mut out = Vec::new();
        match stream.deflate(&[], mode, &mut out) {
            Ok(code) => {
                if mode == z::Z_FINISH && code == z::Z_STREAM_END {
                    *slot = None;
                }
                Ok(vm.ctx.new_bytes(out))
            }
            Err(z::Z_MEM_ERROR) => Err(vm.new_memory_error("Out of memory while compressing data")),
            Err(code) => Err(failed(vm, Some(stream), code, "while flushing")),
        }
    }

    #[pymethod]
    fn copy(zelf: &rustpython_vm::Py<Self>, vm: &VirtualMachine) -> PyResult<PyRef<Compress>> {
        let mut slot = zelf.stream.lock();
        let Some(stream) = slot.as_mut() else { return Err(vm.new_value_error("Inconsistent stream state")) };
        let mut copy = fresh_stream();
        // SAFETY: both streams are boxed; the source is initialised.
        let code = unsafe { z::deflateCopy(&mut *copy, &mut *stream.0) };
        match code {
            z::Z_OK => Ok(Compress { stream: PyMutex::new(Some(Stream(copy))) }.into_ref(&vm.ctx)),
            z::Z_MEM_ERROR => Err(vm.new_memory_error("Can't allocate memory for compression object")),
            z::Z_STREAM_ERROR => Err(vm.new_value_error("Inconsistent stream state")),
            code => Err(failed(vm, Some(stream), code, "while copying compression object")),
        }
    }

    #[pymethod(name = "__copy__")]
    fn copy_(zelf: &rustpython_vm::Py<Self>, vm: &VirtualMachine) -> PyResult<PyRef<Compress>> {
        Self::copy(zelf, vm)
    }

    #[pymethod(name = "__deepcopy__")]
    fn deepcopy(zelf: &rustpython_vm::Py<Self>, _memo: PyObjectRef, vm: &VirtualMachine) -> PyResult<PyRef<Compress>> {
        Self::copy(zelf, vm)
    }
}
