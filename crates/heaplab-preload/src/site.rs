//! The exported `malloc`, `calloc` and `realloc`: each hands its return address (the
//! call site in the program) to `malloc_from`, `calloc_from` or `realloc_from` as one
//! more argument, for `heaplab record --callers`.
//!
//! On x86_64 and aarch64 each is a naked function of two instructions: copy the return
//! address (at `[rsp]` on entry on x86_64, in the link register `x30` on aarch64) into
//! the next argument register and jump to the `_from` function, which returns straight
//! to the caller. That is one load (of a cache line the `call` just wrote) and a direct
//! jump per call whether or not sites are recorded, against a stack walk for a
//! backtrace library's first frame (an unwinder lookup per call, and locks that the
//! allocator may not take) or frame pointers the program need not have. Elsewhere the
//! functions pass no site (0), and a trace records none.

#[cfg(target_arch = "x86_64")]
mod arch {
    use std::ffi::c_void;

    /// # Safety
    /// The C `malloc` contract.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn malloc(_size: usize) -> *mut c_void {
        std::arch::naked_asm!("mov rsi, [rsp]", "jmp {f}", f = sym crate::malloc_from)
    }

    /// # Safety
    /// The C `calloc` contract.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn calloc(_n: usize, _size: usize) -> *mut c_void {
        std::arch::naked_asm!("mov rdx, [rsp]", "jmp {f}", f = sym crate::calloc_from)
    }

    /// # Safety
    /// The C `realloc` contract.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn realloc(_p: *mut c_void, _size: usize) -> *mut c_void {
        std::arch::naked_asm!("mov rdx, [rsp]", "jmp {f}", f = sym crate::realloc_from)
    }
}

#[cfg(target_arch = "aarch64")]
mod arch {
    use std::ffi::c_void;

    /// # Safety
    /// The C `malloc` contract.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn malloc(_size: usize) -> *mut c_void {
        std::arch::naked_asm!("mov x1, x30", "b {f}", f = sym crate::malloc_from)
    }

    /// # Safety
    /// The C `calloc` contract.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn calloc(_n: usize, _size: usize) -> *mut c_void {
        std::arch::naked_asm!("mov x2, x30", "b {f}", f = sym crate::calloc_from)
    }

    /// # Safety
    /// The C `realloc` contract.
    #[unsafe(naked)]
    #[no_mangle]
    pub unsafe extern "C" fn realloc(_p: *mut c_void, _size: usize) -> *mut c_void {
        std::arch::naked_asm!("mov x2, x30", "b {f}", f = sym crate::realloc_from)
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod arch {
    use std::ffi::c_void;

    /// # Safety
    /// The C `malloc` contract.
    #[no_mangle]
    pub unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        // SAFETY: the caller's contract is malloc's.
        unsafe { crate::malloc_from(size, 0) }
    }

    /// # Safety
    /// The C `calloc` contract.
    #[no_mangle]
    pub unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut c_void {
        // SAFETY: the caller's contract is calloc's.
        unsafe { crate::calloc_from(n, size, 0) }
    }

    /// # Safety
    /// The C `realloc` contract.
    #[no_mangle]
    pub unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
        // SAFETY: the caller's contract is realloc's.
        unsafe { crate::realloc_from(p, size, 0) }
    }
}
