//! The DXBC shaders of the probe (`d3dfloat::probe::dxbc`), checked against what a real
//! compiler wrote (two fxc blobs, tests/data/dxbc, see tests/data/README.md) and against a
//! real translator: vkd3d-compiler (Debian `vkd3d-compiler`) turns every blob into SPIR-V,
//! which `spirv-val` (Debian `spirv-tools`) validates and `spirv-dis` shows doing the
//! instruction under test. A missing tool skips that part with one line on stderr.

use std::path::{Path, PathBuf};
use std::process::Command;

use d3dfloat::d3d::Op;
use d3dfloat::judge::Family;
use d3dfloat::probe::catalog::{Kernel, Lane, all_kernels};
use d3dfloat::probe::dxbc::container::{self, ContainerError};
use d3dfloat::probe::dxbc::tokens::{self, Operand, Reg, global_flags, opcode, run};
use d3dfloat::probe::dxbc::{self, build, build_indexed};

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dxbc")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const FXC_BLOBS: [&str; 2] = [
    "basic-compute11-raw.dxbc",
    "basic-compute11-raw-double.dxbc",
];

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn checksum_equals_the_one_fxc_stored() {
    for name in FXC_BLOBS {
        let blob = data(name);
        let stored: Vec<u32> = words(&blob[4..20]);
        assert_eq!(container::checksum(&blob).to_vec(), stored, "{name}");
        container::verify(&blob).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn a_blob_with_one_byte_changed_is_refused() {
    for name in FXC_BLOBS {
        let blob = data(name);
        // One byte in the SHEX chunk, one in the checksum itself, one in the last byte.
        for at in [400, 9, blob.len() - 1] {
            let mut changed = blob.clone();
            changed[at] ^= 0x10;
            assert!(
                matches!(
                    container::verify(&changed),
                    Err(ContainerError::Checksum { .. })
                ),
                "{name}: byte {at}"
            );
        }
    }
}

#[test]
fn fxc_programs_parse_with_the_test_reader() {
    for name in FXC_BLOBS {
        let blob = data(name);
        let chunks = container::read(&blob).unwrap();
        let tags: Vec<&[u8]> = chunks.iter().map(|c| &c.tag[..]).collect();
        assert!(tags.contains(&&b"SHEX"[..]), "{name}: {tags:?}");
        let shex = container::find(&blob, b"SHEX").unwrap().unwrap();
        let list = tokens::instructions(shex).unwrap();
        assert_eq!(list.last().unwrap().0, opcode::RET, "{name}");
        assert!(
            list.iter().any(|&(op, _)| op == opcode::STORE_RAW),
            "{name}"
        );
    }
}

/// Whether `needle` occurs in the program of `blob` as a run of whole tokens.
fn program_holds(blob: &[u8], needle: &[u32]) -> bool {
    let shex = words(container::find(blob, b"SHEX").unwrap().unwrap());
    shex.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn token_encoder_writes_what_fxc_wrote() {
    // Both fxc programs: dcl_uav_raw u0, dcl_input vThreadID.x, dcl_thread_group 1, 1, 1.
    for name in FXC_BLOBS {
        let blob = data(name);
        for (what, tokens) in [
            ("dcl_uav_raw u0", tokens::dcl_uav_raw(0)),
            ("dcl_input vThreadID.x", tokens::dcl_input_thread_id(1)),
            ("dcl_thread_group", tokens::dcl_thread_group(1, 1, 1)),
            ("ret", tokens::instruction(opcode::RET, 0, &[])),
        ] {
            assert!(
                program_holds(&blob, &tokens),
                "{name}: {what}: {tokens:08x?}"
            );
        }
    }
    let raw = data(FXC_BLOBS[0]);
    let double = data(FXC_BLOBS[1]);
    let r = Reg::Temp;
    let thread = Operand::select(Reg::ThreadId, 0);
    let cases = [
        (
            &raw,
            "dcl_globalFlags refactoringAllowed",
            tokens::dcl_global_flags(global_flags::REFACTORING_ALLOWED),
        ),
        (&raw, "dcl_temps 3", tokens::dcl_temps(3)),
        (
            &raw,
            "ishl r0.x, vThreadID.x, l(3)",
            tokens::instruction(
                opcode::ISHL,
                0,
                &[Operand::dst(r(0), 1), thread, Operand::Imm(3)],
            ),
        ),
        (
            &raw,
            "add r2.y, r0.z, r1.y",
            tokens::instruction(
                opcode::ADD,
                0,
                &[
                    Operand::dst(r(2), 2),
                    Operand::select(r(0), 2),
                    Operand::select(r(1), 1),
                ],
            ),
        ),
        (
            &raw,
            "store_raw u0.xy, r0.x, r2.xyxx",
            tokens::instruction(
                opcode::STORE_RAW,
                0,
                &[
                    Operand::dst(Reg::Uav(0), 3),
                    Operand::select(r(0), 0),
                    Operand::swizzle(r(2), run(0, 2)),
                ],
            ),
        ),
        (
            &double,
            "dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps",
            tokens::dcl_global_flags(global_flags::REFACTORING_ALLOWED | global_flags::DOUBLES),
        ),
        (
            &double,
            "dadd r0.zw, r1.xyxy, r2.xyxy",
            tokens::instruction(
                opcode::DADD,
                0,
                &[
                    Operand::dst(r(0), 0b1100),
                    Operand::swizzle(r(1), [0, 1, 0, 1]),
                    Operand::swizzle(r(2), [0, 1, 0, 1]),
                ],
            ),
        ),
    ];
    for (blob, what, tokens) in cases {
        assert!(program_holds(blob, &tokens), "{what}: {tokens:08x?}");
    }
    // fxc's SFI0 for a shader with doubles: D3D_SHADER_REQUIRES_DOUBLES.
    let dadd = all_kernels()
        .into_iter()
        .find(|k| k.name == "dadd")
        .unwrap();
    assert_eq!(
        container::find(&double, b"SFI0").unwrap(),
        container::find(&build(&dadd, false).unwrap(), b"SFI0").unwrap()
    );
    // fxc's empty signatures are ours.
    let ours = build(&all_kernels()[0], false).unwrap();
    for tag in [b"ISGN", b"OSGN"] {
        assert_eq!(
            container::find(&raw, tag).unwrap(),
            container::find(&ours, tag).unwrap()
        );
    }
}

/// Every kernel SM5 expresses, with the forms it has: (kernel, indexed).
fn expressible() -> Vec<(Kernel, bool)> {
    let mut v = Vec::new();
    for k in all_kernels() {
        if dxbc::unsupported(&k).is_some() {
            continue;
        }
        if k.sweep().is_some() {
            v.push((k.clone(), true));
        }
        v.push((k, false));
    }
    v
}

fn blob_of(k: &Kernel, indexed: bool, wrong: bool) -> Vec<u8> {
    let built = if indexed {
        build_indexed(k, wrong, 1024)
    } else {
        build(k, wrong)
    };
    built.unwrap_or_else(|e| panic!("{}: {e}", dxbc::file_name(k, indexed)))
}

#[test]
fn every_expressible_kernel_builds_verifies_and_parses() {
    let all = all_kernels();
    let refused: Vec<&Kernel> = all
        .iter()
        .filter(|k| dxbc::unsupported(k).is_some())
        .collect();
    // SM5 lacks only the f16 arithmetic.
    assert!(refused.iter().all(|k| k.family == Family::F16));
    assert_eq!(
        refused.len(),
        all.iter().filter(|k| k.family == Family::F16).count()
    );
    let forms = expressible();
    assert!(forms.len() > 40, "{}", forms.len());
    for (k, indexed) in &forms {
        let name = dxbc::file_name(k, *indexed);
        let blob = blob_of(k, *indexed, false);
        container::verify(&blob).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shex = container::find(&blob, b"SHEX").unwrap().unwrap();
        let list = tokens::instructions(shex).unwrap_or_else(|e| panic!("{name}: {e}"));
        // cs_5_0 and a ret at the end.
        assert_eq!(words(shex)[0], 0x0005_0050, "{name}");
        assert_eq!(list.last().unwrap().0, opcode::RET, "{name}");
        let stores = list
            .iter()
            .filter(|&&(op, _)| op == opcode::STORE_RAW)
            .count();
        assert_eq!(stores, 1, "{name}");
        let wrong = blob_of(k, *indexed, true);
        assert_ne!(wrong, blob, "{name}: the wrong shader differs");
        container::verify(&wrong).unwrap_or_else(|e| panic!("{name} (wrong): {e}"));
        let has_sfi0 = container::find(&blob, b"SFI0").unwrap().is_some();
        assert_eq!(has_sfi0, k.family == Family::F64, "{name}");
    }
    // Kernels with no sweep have no indexed shader.
    let dp3 = all.iter().find(|k| k.name == "dp3").unwrap();
    assert!(build_indexed(dp3, false, 1024).is_err());
}

#[test]
fn indexed_shaders_split_two_operands_into_halves() {
    // No SM5 kernel of the catalogue sweeps two operands (that is f16 arithmetic), so
    // make one: add over two float16 patterns in the f32 family.
    let mut k = all_kernels().into_iter().find(|k| k.name == "add").unwrap();
    k.input = Lane::F16;
    assert!(k.sweep().is_some());
    let blob = build_indexed(&k, false, 1024).unwrap();
    let shex = container::find(&blob, b"SHEX").unwrap().unwrap();
    let ops: Vec<u32> = tokens::instructions(shex)
        .unwrap()
        .iter()
        .map(|&(op, _)| op)
        .collect();
    assert!(
        ops.contains(&opcode::USHR) && ops.contains(&opcode::AND),
        "{ops:x?}"
    );
}

// ---- vkd3d-compiler, spirv-val, spirv-dis ----

fn tool(name: &str) -> bool {
    let found = Command::new(name).arg("--version").output().is_ok();
    if !found {
        eprintln!(
            "SKIPPED: {name} is not on PATH (Debian: vkd3d-compiler, spirv-tools); scripts/test installs it"
        );
    }
    found
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("d3dfloat-dxbc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The vkd3d-shader version vkd3d-compiler reports, as (major, minor).
fn vkd3d_version() -> (u32, u32) {
    let out = Command::new("vkd3d-compiler")
        .arg("--version")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let after = text.split("vkd3d-shader ").nth(1).unwrap_or("0.0");
    let mut parts = after
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// What the SPIR-V of a kernel's shader must contain: the translation of the instruction
/// under test (vkd3d-shader's mapping, as spirv-dis prints it).
fn expected_spirv(k: &Kernel) -> &'static [&'static str] {
    match k.op {
        Op::Add => &["OpFAdd"],
        Op::Sub => &["OpFNegate", "OpFAdd"],
        Op::Mul => &["OpFMul"],
        Op::Div | Op::Rcp => &["OpFDiv"],
        Op::Mad => &["Fma"],
        Op::Dp2 | Op::Dp3 | Op::Dp4 => &["OpDot"],
        Op::Min => &["NMin"],
        Op::Max => &["NMax"],
        Op::Sqrt => &["Sqrt"],
        Op::Rsq => &["InverseSqrt"],
        Op::Exp => &["Exp2"],
        Op::Log => &["Log2"],
        Op::Frc => &["Fract"],
        Op::RoundNe => &["RoundEven"],
        Op::RoundNi => &["Floor"],
        Op::RoundPi => &["Ceil"],
        Op::RoundZ => &["Trunc"],
        Op::Sincos | Op::Sin | Op::Cos => &["Sin", "Cos"],
        Op::Eq => &["OpFOrdEqual"],
        Op::Ne => &["OpFUnordNotEqual"],
        Op::Lt | Op::Gt => &["OpFOrdLessThan"],
        Op::Ge | Op::Le => &["OpFOrdGreaterThanEqual"],
        Op::Ftoi => &["OpConvertFToS"],
        Op::Ftou => &["OpConvertFToU"],
        Op::Itof => &["OpConvertSToF"],
        Op::Utof => &["OpConvertUToF"],
        Op::F16ToF32 => &["UnpackHalf2x16"],
        Op::F32ToF16 => &["PackHalf2x16"],
        Op::Dtof | Op::Ftod => &["OpFConvert"],
    }
}

/// vkd3d-shader 1.2's storage-buffer UAVs decorate their one shared runtime-array type
/// once per UAV, which spirv-val refuses; a translator quirk, not the blob's.
const VKD3D_DUPLICATE_STRIDE: &str = "decorated with ArrayStride multiple times";

#[test]
fn vkd3d_compiler_translates_every_blob_to_valid_spirv() {
    if !tool("vkd3d-compiler") {
        return;
    }
    let validate = tool("spirv-val");
    let disassemble = tool("spirv-dis");
    let (major, minor) = vkd3d_version();
    // vkd3d-shader learnt the double instructions after 1.2 (1.2 refuses their opcodes).
    let knows_doubles = (major, minor) > (1, 2);
    let dir = scratch();
    let mut translated = 0;
    let mut refused_doubles = 0;
    let mut duplicate_strides = 0;
    for (k, indexed) in expressible() {
        for wrong in [false, true] {
            let name = dxbc::file_name(&k, indexed);
            let input = dir.join(if wrong {
                format!("wrong.{name}")
            } else {
                name.clone()
            });
            std::fs::write(&input, blob_of(&k, indexed, wrong)).unwrap();
            // Raw UAVs as texel buffers (vkd3d's default) and as storage buffers.
            for uavs in ["buffer-texture", "storage-buffer"] {
                let output = input.with_extension(format!("{uavs}.spv"));
                let run = Command::new("vkd3d-compiler")
                    .args(["-x", "dxbc-tpf", "-b", "spirv-binary"])
                    .arg(format!("--buffer-uav={uavs}"))
                    .arg("-o")
                    .arg(&output)
                    .arg(&input)
                    .output()
                    .unwrap();
                if !run.status.success() {
                    if k.family == Family::F64 && !knows_doubles {
                        refused_doubles += 1;
                        continue;
                    }
                    panic!(
                        "{name} ({uavs}): vkd3d-compiler failed: {}",
                        String::from_utf8_lossy(&run.stderr)
                    );
                }
                translated += 1;
                if validate {
                    let val = Command::new("spirv-val")
                        .args(["--target-env", "vulkan1.1"])
                        .arg(&output)
                        .output()
                        .unwrap();
                    let complaint = String::from_utf8_lossy(&val.stderr);
                    if !val.status.success() && complaint.contains(VKD3D_DUPLICATE_STRIDE) {
                        duplicate_strides += 1;
                    } else {
                        assert!(
                            val.status.success(),
                            "{name} ({uavs}): spirv-val: {complaint}"
                        );
                    }
                }
                if disassemble {
                    let dis = Command::new("spirv-dis").arg(&output).output().unwrap();
                    let text = String::from_utf8_lossy(&dis.stdout);
                    for op in expected_spirv(&k) {
                        assert!(text.contains(op), "{name} ({uavs}): no {op} in\n{text}");
                    }
                    let flipped = text.contains("OpBitwiseXor");
                    assert_eq!(flipped, wrong && k.op != Op::Add, "{name}: xor");
                    if k.op == Op::Add {
                        assert_eq!(text.contains("OpFNegate"), wrong, "{name}: negate");
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if refused_doubles > 0 {
        eprintln!(
            "NOTE: vkd3d-shader {major}.{minor} knows no double instructions: \
             {refused_doubles} translations of double blobs refused"
        );
    }
    if duplicate_strides > 0 {
        eprintln!(
            "NOTE: vkd3d-shader {major}.{minor}: {duplicate_strides} storage-buffer translations \
             repeat an ArrayStride decoration (spirv-val refuses them)"
        );
    }
    assert!(translated >= 120, "{translated} translations");
}
