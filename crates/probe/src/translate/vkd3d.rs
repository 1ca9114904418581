//! vkd3d-shader, loaded at run time: the DXBC-to-SPIR-V compiler of Wine's Direct3D 12
//! (vkd3d). Only the four entry points every version since 1.2 exports are used, through
//! the structures of its public header (`vkd3d_shader.h`), which keep their layout across
//! versions (new fields come as new chained structures, never appended).

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::path::{Path, PathBuf};

use super::UAV_BINDINGS;
use crate::judge::{TranslatorInfo, Via};

/// The library's name on Linux (Debian's `libvkd3d-shader1`).
pub const LIBRARY: &str = "libvkd3d-shader.so.1";
/// The Debian package that holds it.
pub const PACKAGE: &str = "libvkd3d-shader1";

// The header's enumerators this file passes (vkd3d_shader.h, stable since 1.2).
const STRUCTURE_TYPE_COMPILE_INFO: c_uint = 0;
const STRUCTURE_TYPE_INTERFACE_INFO: c_uint = 1;
const STRUCTURE_TYPE_SPIRV_TARGET_INFO: c_uint = 4;
const SOURCE_DXBC_TPF: c_uint = 1;
const TARGET_SPIRV_BINARY: c_uint = 1;
const LOG_LEVEL_WARNING: c_uint = 2;
const SPIRV_ENVIRONMENT_VULKAN_1_0: c_uint = 2;
const DESCRIPTOR_TYPE_UAV: c_uint = 1;
const VISIBILITY_ALL: c_uint = 0;
const BINDING_FLAG_BUFFER: c_uint = 1;
const OPTION_BUFFER_UAV: c_uint = 2;
/// `VKD3D_SHADER_COMPILE_OPTION_BUFFER_UAV_STORAGE_TEXEL_BUFFER`: vkd3d's default, what
/// Wine's Direct3D 12 gets unless a device lacks typed UAV loads.
const BUFFER_UAV_STORAGE_TEXEL_BUFFER: c_uint = 0;

#[repr(C)]
struct ShaderCode {
    code: *const c_void,
    size: usize,
}

#[repr(C)]
struct CompileOption {
    name: c_uint,
    value: c_uint,
}

#[repr(C)]
struct DescriptorBinding {
    set: c_uint,
    binding: c_uint,
    count: c_uint,
}

#[repr(C)]
struct ResourceBinding {
    descriptor_type: c_uint,
    register_space: c_uint,
    register_index: c_uint,
    shader_visibility: c_uint,
    flags: c_uint,
    binding: DescriptorBinding,
}

#[repr(C)]
struct InterfaceInfo {
    structure_type: c_uint,
    next: *const c_void,
    bindings: *const ResourceBinding,
    binding_count: c_uint,
    push_constant_buffers: *const c_void,
    push_constant_buffer_count: c_uint,
    combined_samplers: *const c_void,
    combined_sampler_count: c_uint,
    uav_counters: *const c_void,
    uav_counter_count: c_uint,
}

#[repr(C)]
struct SpirvTargetInfo {
    structure_type: c_uint,
    next: *const c_void,
    entry_point: *const c_char,
    environment: c_uint,
    extensions: *const c_uint,
    extension_count: c_uint,
    parameters: *const c_void,
    parameter_count: c_uint,
    dual_source_blending: bool,
    output_swizzles: *const c_uint,
    output_swizzle_count: c_uint,
}

#[repr(C)]
struct CompileInfo {
    structure_type: c_uint,
    next: *const c_void,
    source: ShaderCode,
    source_type: c_uint,
    target_type: c_uint,
    options: *const CompileOption,
    option_count: c_uint,
    log_level: c_uint,
    source_name: *const c_char,
}

type GetVersion = unsafe extern "C" fn(*mut c_uint, *mut c_uint) -> *const c_char;
type Compile = unsafe extern "C" fn(*const CompileInfo, *mut ShaderCode, *mut *mut c_char) -> c_int;
type FreeMessages = unsafe extern "C" fn(*mut c_char);
type FreeCode = unsafe extern "C" fn(*mut ShaderCode);

/// A loaded vkd3d-shader.
pub struct Vkd3dShader {
    info: TranslatorInfo,
    compile: Compile,
    free_messages: FreeMessages,
    free_code: FreeCode,
    // Kept last so the entry points above stay valid while the value lives.
    _library: libloading::Library,
}

impl Vkd3dShader {
    /// Loads `library` (a path), or the system's `libvkd3d-shader.so.1`. A missing file, a
    /// library that is not vkd3d-shader, or one without the entry points is an error naming
    /// the path and the package that provides it.
    pub fn open(library: Option<&Path>) -> Result<Vkd3dShader, String> {
        let shown = library.map_or_else(|| LIBRARY.to_string(), |p| p.display().to_string());
        let hint = format!(
            "vkd3d-shader: cannot load {shown} (install Debian's {PACKAGE}, or name a build \
             with --translator-lib PATH)"
        );
        let name = library.map_or_else(|| PathBuf::from(LIBRARY), Path::to_path_buf);
        // SAFETY: loading a shared library runs its initialisers; vkd3d-shader's only set up
        // its debug channels. The path is the user's choice, as with any dlopen-based tool.
        let lib = unsafe { libloading::Library::new(&name) }
            .map_err(|e| format!("{hint}: {}", collapse_whitespace(&e.to_string())))?;
        // SAFETY: each symbol is looked up with the signature of vkd3d_shader.h; the function
        // pointers are copied out and used only while `lib` (stored beside them) is alive.
        let (get_version, compile, free_messages, free_code) = unsafe {
            let sym = |n: &[u8]| -> Result<*const c_void, String> {
                lib.get::<*const c_void>(n).map(|s| *s).map_err(|_| {
                    let n = String::from_utf8_lossy(&n[..n.len() - 1]).into_owned();
                    format!("vkd3d-shader: {shown} has no {n}: not vkd3d-shader ({PACKAGE})")
                })
            };
            (
                std::mem::transmute::<*const c_void, GetVersion>(sym(
                    b"vkd3d_shader_get_version\0",
                )?),
                std::mem::transmute::<*const c_void, Compile>(sym(b"vkd3d_shader_compile\0")?),
                std::mem::transmute::<*const c_void, FreeMessages>(sym(
                    b"vkd3d_shader_free_messages\0",
                )?),
                std::mem::transmute::<*const c_void, FreeCode>(sym(
                    b"vkd3d_shader_free_shader_code\0",
                )?),
            )
        };
        let (mut major, mut minor) = (0, 0);
        // SAFETY: the function writes two unsigned ints and returns a static string or null.
        let text = unsafe {
            let p = get_version(&mut major, &mut minor);
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        let version = text.unwrap_or_else(|| format!("vkd3d-shader {major}.{minor}"));
        let source = library.map_or_else(
            || resolved().unwrap_or_else(|| LIBRARY.to_string()),
            |p| p.display().to_string(),
        );
        Ok(Vkd3dShader {
            info: TranslatorInfo {
                via: Via::Vkd3dShader.name().into(),
                version,
                source,
                options: vec![
                    (
                        "buffer_uav".into(),
                        "storage-texel-buffer (the default)".into(),
                    ),
                    ("environment".into(), "vulkan-1.0".into()),
                    (
                        "float".into(),
                        "no float options in this API: as built".into(),
                    ),
                ],
            },
            compile,
            free_messages,
            free_code,
            _library: lib,
        })
    }
}

/// The file the dynamic linker chose for the library: the mapped file of that name in
/// `/proc/self/maps` (Linux), so the report names the build that ran.
fn resolved() -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("libvkd3d-shader.so"))
        .map(str::to_string)
}

/// `enum vkd3d_result` (vkd3d_types.h), as the report names it.
fn status_name(status: c_int) -> String {
    let name = match status {
        -1 => "error",
        -2 => "out of memory",
        -3 => "invalid argument",
        -4 => "invalid shader",
        -5 => "not implemented",
        _ => "",
    };
    if name.is_empty() {
        format!("status {status}")
    } else {
        format!("status {status}, {name}")
    }
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl super::Translator for Vkd3dShader {
    fn info(&self) -> &TranslatorInfo {
        &self.info
    }

    fn translate(&self, dxbc: &[u8]) -> Result<Vec<u32>, String> {
        let bindings: Vec<ResourceBinding> = UAV_BINDINGS
            .iter()
            .map(|&(register, binding)| ResourceBinding {
                descriptor_type: DESCRIPTOR_TYPE_UAV,
                register_space: 0,
                register_index: register,
                shader_visibility: VISIBILITY_ALL,
                flags: BINDING_FLAG_BUFFER,
                binding: DescriptorBinding {
                    set: 0,
                    binding,
                    count: 1,
                },
            })
            .collect();
        let interface = InterfaceInfo {
            structure_type: STRUCTURE_TYPE_INTERFACE_INFO,
            next: std::ptr::null(),
            bindings: bindings.as_ptr(),
            binding_count: bindings.len() as c_uint,
            push_constant_buffers: std::ptr::null(),
            push_constant_buffer_count: 0,
            combined_samplers: std::ptr::null(),
            combined_sampler_count: 0,
            uav_counters: std::ptr::null(),
            uav_counter_count: 0,
        };
        let target = SpirvTargetInfo {
            structure_type: STRUCTURE_TYPE_SPIRV_TARGET_INFO,
            next: (&interface as *const InterfaceInfo).cast(),
            entry_point: c"main".as_ptr(),
            environment: SPIRV_ENVIRONMENT_VULKAN_1_0,
            extensions: std::ptr::null(),
            extension_count: 0,
            parameters: std::ptr::null(),
            parameter_count: 0,
            dual_source_blending: false,
            output_swizzles: std::ptr::null(),
            output_swizzle_count: 0,
        };
        let options = [CompileOption {
            name: OPTION_BUFFER_UAV,
            value: BUFFER_UAV_STORAGE_TEXEL_BUFFER,
        }];
        let info = CompileInfo {
            structure_type: STRUCTURE_TYPE_COMPILE_INFO,
            next: (&target as *const SpirvTargetInfo).cast(),
            source: ShaderCode {
                code: dxbc.as_ptr().cast(),
                size: dxbc.len(),
            },
            source_type: SOURCE_DXBC_TPF,
            target_type: TARGET_SPIRV_BINARY,
            options: options.as_ptr(),
            option_count: options.len() as c_uint,
            log_level: LOG_LEVEL_WARNING,
            source_name: c"d3dfloat-probe".as_ptr(),
        };
        let mut out = ShaderCode {
            code: std::ptr::null(),
            size: 0,
        };
        let mut messages: *mut c_char = std::ptr::null_mut();
        // SAFETY: every structure lives on this frame across the call and is laid out as the
        // header declares; vkd3d-shader reads the source and writes `out` and `messages`,
        // which are freed below with its own functions.
        let status = unsafe { (self.compile)(&info, &mut out, &mut messages) };
        // SAFETY: `messages` is null or a string vkd3d-shader allocated.
        let text = unsafe {
            if messages.is_null() {
                String::new()
            } else {
                let t = CStr::from_ptr(messages).to_string_lossy().into_owned();
                (self.free_messages)(messages);
                t
            }
        };
        if status < 0 {
            return Err(format!(
                "vkd3d-shader refused the shader ({}){}{}",
                status_name(status),
                if text.trim().is_empty() { "" } else { ": " },
                collapse_whitespace(&text)
            ));
        }
        if out.code.is_null() || !out.size.is_multiple_of(4) {
            return Err("vkd3d-shader returned no SPIR-V words".into());
        }
        // SAFETY: on success `out` holds `size` bytes of SPIR-V that vkd3d-shader allocated;
        // they are copied, then freed with its own function.
        let words = unsafe {
            let bytes = std::slice::from_raw_parts(out.code.cast::<u8>(), out.size);
            let w = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            (self.free_code)(&mut out);
            w
        };
        Ok(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_names_the_path_and_the_package() {
        let err = Vkd3dShader::open(Some(Path::new("/nonexistent/libvkd3d-shader.so.9")))
            .err()
            .expect("no such file");
        assert!(err.contains("/nonexistent/libvkd3d-shader.so.9"), "{err}");
        assert!(err.contains(PACKAGE), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}
