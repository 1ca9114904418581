//! Build script: one compiler probe. The x86 conversion passes have a second copy built
//! with AVX-512 (32 vector registers, so the widest passes stop spilling their running
//! counts to memory), chosen at run time on CPUs that have it (`convert::kernels::simd`). The AVX-512 target
//! features were stabilised in Rust 1.89 while the crate builds from 1.88, so that copy
//! is compiled only when this compiler accepts them (`cfg(d3dfloat_avx512)`).

fn main() {
    autocfg::emit_possibility("d3dfloat_avx512");
    let target_is_x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    if !target_is_x86_64 {
        return;
    }
    // Rust 1.88 rejects these target features as unstable. (No intrinsic here: the
    // passes use only AVX2 intrinsics, and the compiler picks the AVX-512 encodings.)
    let probe = autocfg::new().probe_raw(
        r#"
        /// # Safety
        /// Only on a CPU with these features. (The probe is compiled with the lints of
        /// the build that runs it, clippy's included.)
        #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq")]
        pub unsafe fn probe() {}
        "#,
    );
    if probe.is_ok() {
        autocfg::emit("d3dfloat_avx512");
    }
    autocfg::rerun_path("build.rs");
}
