//! `probe --via`: the DXBC the probe writes, through the real translators, on lavapipe.
//! `scripts/test` installs vkd3d-shader, vkd3d-compiler and spirv-tools
//! (`scripts/install-translators.sh`) and builds dxbc-spirv in (`--features dxbc-spirv`);
//! without them these tests fail naming what to install (a translator test that passed
//! without a translator would prove nothing).

use std::path::Path;
use std::process::Command as Process;

use assert_cmd::Command;
use d3dfloat::d3d::RuleSet;
use d3dfloat::judge::{Buffer, Judge, Options};
use d3dfloat::judge::{Family, Via};
use d3dfloat::probe::catalog::{Kernel, all_kernels};
use d3dfloat::probe::results::{judge, result_buffer};
use d3dfloat::probe::sweep::CHUNK_LINES;
use d3dfloat::probe::translate::{self, Translator};
use d3dfloat::probe::vulkan::Vulkan;
use d3dfloat::probe::{Device, dxbc, inputs, layout, pack};
use serde_json::Value;

const INSTALL: &str = "the translator tests need lavapipe and vkd3d-shader: run \
`bash scripts/install-vulkan.sh` and `bash scripts/install-translators.sh`";

fn d3dfloat() -> Command {
    let mut c = Command::cargo_bin("d3dfloat").unwrap();
    c.env("NO_COLOR", "1")
        .env_remove("D3DFLOAT_TEST_FAKE_DEVICE")
        .env_remove("D3DFLOAT_TEST_WRONG_SHADER");
    c
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The translated paths this build has: vkd3d-shader always, dxbc-spirv with its feature.
fn translated_paths() -> Vec<Via> {
    let mut v = vec![Via::Vkd3dShader];
    if cfg!(feature = "dxbc-spirv") {
        v.push(Via::DxbcSpirv);
    } else {
        eprintln!("probe_translators: built without --features dxbc-spirv: dxbc-spirv not tested");
    }
    v
}

/// Every catalogue kernel Shader Model 5 expresses.
fn sm5_kernels() -> Vec<Kernel> {
    all_kernels()
        .into_iter()
        .filter(|k| dxbc::unsupported(&k.through(Via::Vkd3dShader)).is_none())
        .collect()
}

fn open(via: Via) -> Box<dyn Translator> {
    translate::open(via, None).unwrap_or_else(|e| panic!("{INSTALL}: {e}"))
}

/// Whether `t` is a vkd3d-shader 1.2, which refuses every double instruction (its SM4
/// reader does not know their opcodes), and `k` is one.
fn old_vkd3d_without_doubles(t: &dyn Translator, k: &Kernel) -> bool {
    t.info().via == "vkd3d-shader"
        && t.info().version.starts_with("vkd3d-shader 1.2")
        && k.family == Family::F64
}

/// spirv-val's verdict on `words` (Vulkan 1.3 environment: dxbc-spirv writes SPIR-V 1.6), `None` when it is missing.
fn spirv_val(words: &[u32], name: &str) -> Option<Result<(), String>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{name}.spv"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = Process::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output()
        .ok()?;
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}

#[test]
fn every_sm5_blob_translates_and_binds_two_buffers() {
    let mut validated = 0;
    for via in translated_paths() {
        let t = open(via);
        assert!(!t.info().version.is_empty());
        for k in sm5_kernels() {
            let k = k.through(via);
            for indexed in dxbc::forms(&k) {
                let blob = dxbc::blob(&k, indexed, false).unwrap();
                let what = format!(
                    "{} {} via {via} (indexed {indexed})",
                    k.name,
                    k.family.name()
                );
                let words = match t.translate(&blob) {
                    Ok(w) => w,
                    // vkd3d-shader before 1.3 (Debian 12 has 1.2) has no double opcodes in
                    // its reader: found, written down in docs/probe.md, not hidden.
                    Err(e) if old_vkd3d_without_doubles(t.as_ref(), &k) => {
                        assert!(e.contains("invalid shader"), "{what}: {e}");
                        continue;
                    }
                    Err(e) => panic!("{what}: {e}"),
                };
                let l = layout::reflect(&words).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(l.input.is_some(), "{what}");
                if let Some(verdict) = spirv_val(&words, k.name) {
                    verdict.unwrap_or_else(|e| panic!("{what}: spirv-val: {e}"));
                    validated += 1;
                }
            }
        }
    }
    if validated == 0 {
        eprintln!("probe_translators: spirv-val not found, the SPIR-V was not validated");
    }
}

#[test]
fn a_missing_translator_library_is_one_line_naming_it_and_the_package() {
    let out = d3dfloat()
        .args(["probe", "--via", "vkd3d-shader", "--translator-lib"])
        .arg("/nonexistent/libvkd3d-shader.so.1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/libvkd3d-shader.so.1"), "{err}");
    assert!(err.contains("libvkd3d-shader1"), "{err}");
    // A library that is not vkd3d-shader: named, and the package too.
    let out = d3dfloat()
        .args(["probe", "--via", "vkd3d-shader", "--translator-lib"])
        .arg(find_lib("libvulkan.so.1"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("not vkd3d-shader"), "{err}");
    assert!(err.contains("libvulkan.so.1"), "{err}");
}

/// A system library's path (for a library that is not vkd3d-shader).
fn find_lib(name: &str) -> String {
    for dir in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
    ] {
        let p = Path::new(dir).join(name);
        if p.exists() {
            return p.display().to_string();
        }
    }
    panic!("{name} not found: {INSTALL}");
}

/// Every SM5 instruction through each translator on lavapipe: the command's verdict equals
/// the one of the same inputs run here through the library and judged in process, and on
/// normal values add/mul/div/sqrt give the CPU's IEEE results (the shaders really ran).
#[test]
fn each_instruction_through_each_translator_is_judged_as_in_process() {
    let mut paths = vec!["direct".to_string()];
    paths.extend(translated_paths().iter().map(|v| v.name().to_string()));
    let out = d3dfloat()
        .args(["probe", "--json", "--count", "256", "--via"])
        .arg(paths.join(","))
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let objects = json_lines(&out.stdout);
    let device = &objects[0];
    let translators = device["translators"].as_array().unwrap();
    assert_eq!(translators.len(), paths.len() - 1, "{device}");
    assert!(
        translators
            .iter()
            .all(|t| !t["version"].as_str().unwrap().is_empty())
    );
    let ops: Vec<&Value> = objects.iter().filter(|o| o["kind"] == "op").collect();

    let vulkan = Vulkan::open().expect(INSTALL);
    let opened: Vec<Box<dyn Translator>> = translated_paths().into_iter().map(open).collect();
    let mut dev = vulkan.open_device(None, Vec::new(), opened).expect(INSTALL);
    for via in translated_paths() {
        for k in all_kernels() {
            let k = k.through(via);
            let op = ops
                .iter()
                .find(|o| {
                    o["op"] == k.name && o["via"] == via.name() && o["format"] == k.format_label()
                })
                .unwrap_or_else(|| panic!("{} via {via} not in the report", k.name));
            if via == Via::Vkd3dShader
                && k.family == Family::F64
                && op.get("skipped").is_some()
                && translators[0]["version"]
                    .as_str()
                    .unwrap()
                    .starts_with("vkd3d-shader 1.2")
            {
                let why = op["skipped"].as_str().unwrap();
                assert!(why.starts_with("vkd3d-shader refused the shader"), "{why}");
                continue;
            }
            if let Some(why) = dev.unsupported(&k) {
                assert_eq!(op["skipped"], why.as_str(), "{op}");
                if k.family == Family::F16 {
                    assert!(why.contains("not through"), "{why}");
                }
                continue;
            }
            assert!(op.get("skipped").is_none(), "{} via {via}: {op}", k.name);
            let operands = inputs::generate(&k, 256, 1);
            let lines = operands.len() / k.input_components();
            let results = dev.run(&k, &pack(k.input, &operands), lines).unwrap();
            let here = judge(&k, RuleSet::D3D11, &operands, &results, false, false).unwrap();
            assert_eq!(op["lines"], here.lines, "{} via {via}", k.name);
            assert_eq!(op["violate"], here.violate, "{} via {via}", k.name);
            assert_eq!(op["max_ulps"], here.max_ulps, "{} via {via}", k.name);
            if matches!(k.name, "add" | "mul" | "div" | "sqrt") && k.family == Family::F32 {
                let n = k.input_components();
                for (line, r) in operands.chunks(n).zip(&results) {
                    let x: Vec<f32> = line.iter().map(|&b| f32::from_bits(b as u32)).collect();
                    let cpu = match k.name {
                        "add" => x[0] + x[1],
                        "mul" => x[0] * x[1],
                        "div" => x[0] / x[1],
                        _ => x[0].sqrt(),
                    };
                    if x.iter().all(|v| v.is_normal()) && cpu.is_normal() && k.name != "div" {
                        assert_eq!(*r, cpu.to_bits(), "{} {x:?} via {via}", k.name);
                    }
                }
            }
        }
    }
}

/// A 2^24-input slice of the f32 sqrt sweep through vkd3d-shader: the sweep shader (indexed
/// operands) gives the verdict of the same inputs uploaded and judged here.
#[test]
fn a_slice_of_an_f32_sweep_through_vkd3d_shader() {
    let first = 1u64 << 24;
    let out = d3dfloat()
        .args([
            "probe",
            "--exhaustive",
            "--ops",
            "f32:sqrt",
            "--via",
            "vkd3d-shader",
            "--json",
            "--first",
        ])
        .arg(first.to_string())
        .output()
        .unwrap();
    let objects = json_lines(&out.stdout);
    let op = objects.iter().find(|o| o["kind"] == "op").unwrap();
    assert_eq!(op["via"], "vkd3d-shader");
    assert_eq!(op["lines"], first, "{op}");
    let vulkan = Vulkan::open().expect(INSTALL);
    let mut dev = vulkan
        .open_device(None, Vec::new(), vec![open(Via::Vkd3dShader)])
        .expect(INSTALL);
    let k = all_kernels()
        .into_iter()
        .find(|k| k.name == "sqrt" && k.family == Family::F32)
        .unwrap()
        .through(Via::Vkd3dShader);
    let judge = Judge::new(k.op, k.format, RuleSet::D3D11);
    let mut total = d3dfloat::judge::Verdict::default();
    for base in (0..first).step_by(CHUNK_LINES as usize) {
        let n = CHUNK_LINES as usize;
        let words: Vec<u32> = (base..base + n as u64).map(|i| i as u32).collect();
        let results = dev.run(&k, &words, n).unwrap();
        let res = result_buffer(&k, &judge, &results);
        let v = judge
            .run(
                &[Buffer::U32(words).column()],
                res.column(),
                &Options::default(),
            )
            .unwrap();
        total.merge(v, 0);
    }
    assert_eq!(op["conform"], total.conform);
    assert_eq!(op["violate"], total.violate);
    assert_eq!(op["max_distance"], total.max_distance);
}

/// `--dump-dxbc DIR` writes every blob, which vkd3d's own compiler accepts.
#[test]
fn dumped_blobs_compile_with_vkd3d_compiler() {
    let dir = tempfile::tempdir().unwrap();
    let out = d3dfloat()
        .args(["probe", "--plain", "--dump-dxbc"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    let files: Vec<&str> = listed
        .lines()
        .filter(|l| !l.starts_with("skipped "))
        .collect();
    let sm5 = sm5_kernels();
    let expected = sm5.len() + sm5.iter().filter(|k| k.sweep().is_some()).count();
    assert_eq!(files.len(), expected, "{listed}");
    assert!(
        listed.lines().any(|l| l.starts_with("skipped f16 add")),
        "{listed}"
    );
    let compiler = Process::new("vkd3d-compiler")
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("vkd3d-compiler not found ({e}): {INSTALL}"));
    // vkd3d 1.2 (Debian 12) reads no double opcodes: those blobs are its limit, not ours.
    let old = String::from_utf8_lossy(&compiler.stdout).contains("vkd3d-shader 1.2");
    for f in files.into_iter().filter(|f| !(old && f.contains(".f64."))) {
        let spv = dir.path().join("out.spv");
        let run = Process::new("vkd3d-compiler")
            .arg("-o")
            .arg(&spv)
            .arg(f)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "vkd3d-compiler refused {f}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(std::fs::metadata(&spv).unwrap().len() > 20, "{f}");
    }
}
