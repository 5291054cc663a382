//! The scan's hot loops ([`crate::scan`]) compiled a second time for the x86-64 CPUs that have
//! AVX2 and FMA (found at run time, once: `is_x86_feature_detected!`), where the portable build
//! may assume SSE2 only. The same Rust code either way, so the same results: Rust never
//! contracts `a·b + c` into a fused multiply-add, and every loop's order of operations is fixed
//! in its source. Elsewhere (wasm32 with SIMD128, aarch64) the portable build is the only one.
//!
//! The one module of the crate with `unsafe` code (`Cargo.toml` denies it everywhere else, and
//! most modules forbid it outright): a call of a `#[target_feature]` function, made only where
//! the CPU has those features.
#![allow(unsafe_code)]

/// Work to run compiled for the fastest instructions this CPU has ([`fastest`]). `run` should
/// be `#[inline(always)]`, and so should what it calls, to be compiled there (a closure would
/// not be: its body stays a function of its own, built for the baseline CPU).
pub trait Kernel {
    /// What the work gives.
    type Output;
    /// Does the work.
    fn run(self) -> Self::Output;
}

/// Runs `k` — inlined into a function compiled with AVX2, FMA, F16C, BMI1/2, LZCNT and POPCNT
/// when this CPU has them, else as it is.
#[inline(always)]
pub fn fastest<K: Kernel>(k: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: `with_avx2` only needs the target features it is compiled with, and
            // `has_avx2` has just found each of them on this CPU.
            return unsafe { with_avx2(k) };
        }
    }
    k.run()
}

/// Whether this CPU has every feature [`with_avx2`] is compiled with (cached by `std`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("f16c")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
        && is_x86_feature_detected!("lzcnt")
        && is_x86_feature_detected!("popcnt")
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c,bmi1,bmi2,lzcnt,popcnt")]
fn with_avx2<K: Kernel>(k: K) -> K::Output {
    k.run()
}
