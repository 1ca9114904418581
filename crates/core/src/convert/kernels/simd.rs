//! The one place the kernels ask the CPU what it has.
//!
//! A [`Simd`] names an instruction-set [`Level`] that the CPU running this process has:
//! [`Simd::detect`] and [`Simd::at`] are the only ways to make one, and both check the
//! CPU first. A conversion picks its `Simd` once and hands it down; every choice between
//! the copies of a pass is then a `dispatch!` on it, whose `unsafe` calls rest on
//! that one check. The copies themselves are made by `compile_for!`: the same
//! functions compiled once per level's target features.
//!
//! `D3DFLOAT_SIMD` (`portable`, `avx2`, `f16c`, `avx512`) caps the level [`Simd::detect`]
//! returns, to reproduce a result or a speed of another CPU. Every level gives the same
//! bits and counts; only the speed differs.

use std::sync::OnceLock;

/// An instruction-set level of the kernels, each containing the ones before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Plain Rust, whatever the CPU.
    Portable,
    /// x86-64 with AVX2: the passes in float arithmetic and the portable loops compiled
    /// 8 lanes wide.
    Avx2,
    /// AVX2 and F16C (`vcvtps2ph`, `vcvtph2ps`): the f16 passes and R11G11B10 unpacking.
    F16c,
    /// F16C and AVX-512 F, VL, BW and DQ (x86-64-v4): the widest passes compiled again
    /// with 32 vector registers. Only where the compiler takes those target features
    /// (Rust 1.89 and later, `build.rs`).
    Avx512,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 4] = [Level::Portable, Level::Avx2, Level::F16c, Level::Avx512];

    /// The name `D3DFLOAT_SIMD` takes.
    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Avx2 => "avx2",
            Level::F16c => "f16c",
            Level::Avx512 => "avx512",
        }
    }

    /// The level named `name` (as [`Level::name`] writes it, any case).
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether this CPU (and this build) can run code of this level.
    fn supported(self) -> bool {
        match self {
            Level::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Level::F16c => Level::Avx2.supported() && std::is_x86_feature_detected!("f16c"),
            #[cfg(all(target_arch = "x86_64", d3dfloat_avx512))]
            Level::Avx512 => {
                Level::F16c.supported()
                    && std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512vl")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512dq")
            }
            #[allow(unreachable_patterns)] // Every level is reachable on x86-64 with AVX-512.
            _ => false,
        }
    }
}

/// Proof that the CPU has the features of a [`Level`]: only [`Simd::detect`] and
/// [`Simd::at`] make one, after checking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simd {
    level: Level,
}

impl Simd {
    /// The best level this CPU has, capped by `D3DFLOAT_SIMD` when it names a level (any
    /// other value is ignored). Asked once per process.
    pub fn detect() -> Simd {
        static DETECTED: OnceLock<Simd> = OnceLock::new();
        *DETECTED.get_or_init(|| Simd::capped(std::env::var("D3DFLOAT_SIMD").ok().as_deref()))
    }

    /// What is wrong with `D3DFLOAT_SIMD`, when it is set to something other than a level's
    /// name: one sentence naming the variable and the values it takes, for the command
    /// line to warn with (an unknown value caps nothing, as [`Simd::detect`] says).
    pub fn setting_problem() -> Option<String> {
        Simd::problem_with(std::env::var_os("D3DFLOAT_SIMD").as_deref())
    }

    fn problem_with(value: Option<&std::ffi::OsStr>) -> Option<String> {
        let value = value?;
        if value.to_str().and_then(Level::from_name).is_some() {
            return None;
        }
        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        Some(format!(
            "D3DFLOAT_SIMD={}: not a level, so ignored (it takes {}; the best level this CPU \
             has is used)",
            value.to_string_lossy(),
            names.join(", ")
        ))
    }

    /// The best level this CPU has at or below the level `cap` names (none, or a name
    /// [`Level::from_name`] does not know: no cap).
    fn capped(cap: Option<&str>) -> Simd {
        let cap = cap.and_then(Level::from_name).unwrap_or(Level::Avx512);
        let best = Level::ALL
            .into_iter()
            .filter(|&l| l <= cap && l.supported())
            .max()
            .unwrap_or(Level::Portable);
        Simd { level: best }
    }

    /// `level`, when this CPU has it.
    pub fn at(level: Level) -> Option<Simd> {
        level.supported().then_some(Simd { level })
    }

    /// Plain Rust only: every CPU has it.
    pub fn portable() -> Simd {
        Simd {
            level: Level::Portable,
        }
    }

    /// The level this value proves.
    pub fn level(self) -> Level {
        self.level
    }

    /// Every level this CPU has, lowest first, and the levels it has not.
    pub fn every_level() -> (Vec<Simd>, Vec<Level>) {
        let (have, lack): (Vec<Level>, Vec<Level>) =
            Level::ALL.into_iter().partition(|l| l.supported());
        (have.into_iter().map(|level| Simd { level }).collect(), lack)
    }
}

/// Runs `check` at every level this CPU has, lowest first: the one runner the kernel
/// tests share, so that each of them holds every copy of a pass. The levels it cannot
/// run here are named on stderr, once per process, so a test never passes silently
/// for lack of a CPU feature.
pub fn for_each_level(mut check: impl FnMut(Simd)) {
    use std::io::Write;
    static NAMED: std::sync::Once = std::sync::Once::new();
    let (have, lack) = Simd::every_level();
    if !lack.is_empty() {
        NAMED.call_once(|| {
            let names: Vec<&str> = lack.iter().map(|l| l.name()).collect();
            let _ = writeln!(
                std::io::stderr(),
                "kernel levels this CPU (or build) cannot run: {}",
                names.join(", ")
            );
        });
    }
    for simd in have {
        check(simd);
    }
}

/// The levels from `lowest` up that this CPU has, through [`for_each_level`] (so those
/// it lacks are named): for the tests of a pass whose copies start at that level.
pub fn levels_from(lowest: Level) -> Vec<Simd> {
    let mut levels = Vec::new();
    for_each_level(|simd| {
        if simd.level() >= lowest {
            levels.push(simd)
        }
    });
    levels
}

/// Compiles the functions given once per listed level, each copy in a module named after
/// its level (`avx2`, `f16c`, `avx512`) with that level's target features, so that
/// the same lane code (the `std::arch` intrinsics, or portable loops that LLVM then
/// vectorises) gets each level's instructions and registers. The functions see the
/// enclosing module's names. A copy is called through [`dispatch!`].
macro_rules! compile_for {
    ($($level:ident),+ => $items:tt) => {
        $( $crate::convert::kernels::simd::compile_for!(@level $level $items); )+
    };
    (@level avx2 { $($item:item)* }) => {
        /// The copies compiled for AVX2.
        #[cfg(target_arch = "x86_64")]
        pub(in crate::convert::kernels) mod avx2 {
            #[allow(unused_imports)]
            use super::*;
            $( #[target_feature(enable = "avx2")] $item )*
        }
    };
    (@level f16c { $($item:item)* }) => {
        /// The copies compiled for AVX2 and F16C.
        #[cfg(target_arch = "x86_64")]
        pub(in crate::convert::kernels) mod f16c {
            #[allow(unused_imports)]
            use super::*;
            $( #[target_feature(enable = "avx2,f16c")] $item )*
        }
    };
    (@level avx512 { $($item:item)* }) => {
        /// The copies compiled for AVX-512 (F, VL, BW, DQ) with AVX2 and F16C.
        #[cfg(all(target_arch = "x86_64", d3dfloat_avx512))]
        pub(in crate::convert::kernels) mod avx512 {
            #[allow(unused_imports)]
            use super::*;
            $( #[target_feature(enable = "avx2,f16c,avx512f,avx512vl,avx512bw,avx512dq")] $item )*
        }
    };
}

/// Evaluates the arm of the highest level that `$simd` proves, trying the listed arms
/// from the top: `avx512`, `f16c`, `avx2` (each optional, in that order), then
/// `portable`, which every CPU can take. An arm calls copies of its level or below
/// (from [`compile_for!`], or functions with those target features).
macro_rules! dispatch {
    ($simd:expr, {
        $(avx512 => $avx512:expr,)?
        $(f16c => $f16c:expr,)?
        $(avx2 => $avx2:expr,)?
        portable => $portable:expr $(,)?
    }) => {{
        #[allow(unused_variables)]
        let level = $crate::convert::kernels::simd::Simd::level($simd);
        #[allow(unused_labels)]
        'dispatch: {
            $(
                #[cfg(all(target_arch = "x86_64", d3dfloat_avx512))]
                if level >= $crate::convert::kernels::simd::Level::Avx512 {
                    #[allow(unused_unsafe)] // An arm may call plain code.
                    // SAFETY: a `Simd` of this level exists only where the CPU has its
                    // features (`Simd::detect` and `Simd::at` check them).
                    let value = unsafe { $avx512 };
                    break 'dispatch value;
                }
            )?
            $(
                #[cfg(target_arch = "x86_64")]
                if level >= $crate::convert::kernels::simd::Level::F16c {
                    #[allow(unused_unsafe)] // An arm may call plain code.
                    // SAFETY: as above: the level was checked when `$simd` was made.
                    let value = unsafe { $f16c };
                    break 'dispatch value;
                }
            )?
            $(
                #[cfg(target_arch = "x86_64")]
                if level >= $crate::convert::kernels::simd::Level::Avx2 {
                    #[allow(unused_unsafe)] // An arm may call plain code.
                    // SAFETY: as above: the level was checked when `$simd` was made.
                    let value = unsafe { $avx2 };
                    break 'dispatch value;
                }
            )?
            $portable
        }
    }};
}

pub(crate) use {compile_for, dispatch};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_simd_setting_is_one_sentence_naming_every_level() {
        use std::ffi::OsStr;
        assert_eq!(Simd::problem_with(None), None);
        assert_eq!(Simd::problem_with(Some(OsStr::new("AVX2"))), None);
        let p = Simd::problem_with(Some(OsStr::new("sse9"))).unwrap();
        assert!(p.starts_with("D3DFLOAT_SIMD=sse9: "), "{p}");
        assert!(p.contains("portable, avx2, f16c, avx512"), "{p}");
        assert!(!p.contains('\n'));
        assert!(Simd::problem_with(Some(OsStr::new(""))).is_some());
    }

    #[test]
    fn levels_are_named_both_ways_and_ordered() {
        for l in Level::ALL {
            assert_eq!(Level::from_name(l.name()), Some(l));
            assert_eq!(Level::from_name(&l.name().to_uppercase()), Some(l));
        }
        assert_eq!(Level::from_name("sse2"), None);
        assert!(Level::ALL.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn the_variable_caps_the_level() {
        let best = Simd::capped(None).level();
        assert_eq!(Simd::every_level().0.last().map(|s| s.level()), Some(best));
        assert_eq!(Simd::capped(Some("portable")).level(), Level::Portable);
        assert_eq!(Simd::capped(Some(" AVX2 ")).level(), best.min(Level::Avx2));
        assert_eq!(Simd::capped(Some("f16c")).level(), best.min(Level::F16c));
        assert_eq!(Simd::capped(Some("avx512")).level(), best);
        assert_eq!(Simd::capped(Some("sse9")).level(), best);
        for l in Level::ALL {
            assert!(Simd::capped(Some(l.name())).level() <= l);
        }
    }

    #[test]
    fn a_level_is_proved_only_where_the_ones_below_are() {
        assert!(Simd::at(Level::Portable).is_some());
        for w in Level::ALL.windows(2) {
            if Simd::at(w[1]).is_some() {
                assert!(Simd::at(w[0]).is_some(), "{:?} without {:?}", w[1], w[0]);
            }
        }
        assert!(Simd::at(Simd::detect().level()).is_some());
    }
}
