//! The Vulkan device: each kernel's shader runs as one compute dispatch over host-visible
//! storage buffers. The loader (libvulkan) is opened at run time, so a machine without
//! Vulkan gets an error from `probe` and nothing else changes.
//!
//! All `unsafe` of the probe is here: every Vulkan call is a foreign call whose rules (valid
//! handles, objects destroyed after use, memory mapped while written) this module keeps.

use std::ffi::CStr;

use ash::vk;

use super::catalog::Kernel;
use super::layout::{self, Binding, Layout};
use super::shader::{self, SWEEP_LINES_PER_INVOCATION, SWEEP_WORKGROUP, WORKGROUP};
use super::translate::Translator;
use super::{Device, ProbeError, dxbc};
use crate::judge::Via;
use crate::judge::{DeviceInfo, FloatControls};

/// The packages that give a Debian machine a Vulkan loader and a software device.
pub const INSTALL_HINT: &str = "on Debian: apt-get install mesa-vulkan-drivers libvulkan1";

fn vk_error(what: &str) -> impl Fn(vk::Result) -> ProbeError + '_ {
    move |e| ProbeError::Device(format!("Vulkan: {what} failed: {e}"))
}

fn version_text(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

fn c_text(s: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The loader and an instance, from which devices are listed and opened.
pub struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    physical: Vec<(vk::PhysicalDevice, DeviceInfo)>,
}

impl Vulkan {
    /// Opens the loader and lists the devices; an error when there is no loader or no device.
    pub fn open() -> Result<Vulkan, ProbeError> {
        // SAFETY: loading the system's Vulkan loader library runs its initialisers, which is
        // what every Vulkan program does; nothing else is loaded.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| ProbeError::NoDevice(format!("no Vulkan loader ({e}); {INSTALL_HINT}")))?;
        // SAFETY: entry is a loaded loader; the create info outlives the call.
        let instance = unsafe {
            let loader_version = entry
                .try_enumerate_instance_version()
                .ok()
                .flatten()
                .unwrap_or(vk::API_VERSION_1_0);
            let api = loader_version.clamp(vk::API_VERSION_1_1, vk::API_VERSION_1_3);
            let app = vk::ApplicationInfo::default()
                .application_name(c"d3dfloat probe")
                .api_version(api);
            let info = vk::InstanceCreateInfo::default().application_info(&app);
            entry.create_instance(&info, None)
        }
        .map_err(|e| ProbeError::NoDevice(format!("no Vulkan instance ({e}); {INSTALL_HINT}")))?;
        // SAFETY: instance is valid for the rest of this function.
        let handles = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| ProbeError::NoDevice(format!("no Vulkan device ({e}); {INSTALL_HINT}")))?;
        let mut physical = Vec::new();
        for (index, pd) in handles.into_iter().enumerate() {
            let info = describe(&instance, pd, index);
            physical.push((pd, info));
        }
        let vulkan = Vulkan {
            _entry: entry,
            instance,
            physical,
        };
        if vulkan.physical.is_empty() {
            return Err(ProbeError::NoDevice(format!(
                "no Vulkan device found; {INSTALL_HINT}"
            )));
        }
        Ok(vulkan)
    }

    /// Every device the loader found, in `--list-devices` order.
    pub fn devices(&self) -> Vec<DeviceInfo> {
        self.physical.iter().map(|(_, i)| i.clone()).collect()
    }

    /// Opens the device named by `--device` (an index, or a part of the name), else the
    /// first. `wrong` names kernels whose shaders are deliberately broken (a test hook);
    /// `translators` turn the DXBC of the kernels that go through them into SPIR-V.
    pub fn open_device(
        self,
        choice: Option<&str>,
        wrong: Vec<String>,
        translators: Vec<Box<dyn Translator>>,
    ) -> Result<VulkanDevice, ProbeError> {
        let at = match choice {
            None => 0,
            Some(c) => match c.parse::<usize>() {
                Ok(i) if i < self.physical.len() => i,
                Ok(i) => {
                    let n = self.physical.len();
                    return Err(ProbeError::NoDevice(format!(
                        "--device {i}: the Vulkan devices are numbered 0 to {} (see --list-devices)",
                        n - 1
                    )));
                }
                Err(_) => self
                    .physical
                    .iter()
                    .position(|(_, i)| i.name.to_lowercase().contains(&c.to_lowercase()))
                    .ok_or_else(|| {
                        ProbeError::NoDevice(format!(
                            "--device '{c}': no Vulkan device has that in its name (see --list-devices)"
                        ))
                    })?,
            },
        };
        // The shaders are SPIR-V 1.3, which Vulkan 1.1 devices take.
        let api = self.physical[at].1.api_version.clone();
        if api.starts_with("1.0.") {
            return Err(ProbeError::NoDevice(format!(
                "{}: Vulkan {api}; the probe needs a Vulkan 1.1 device",
                self.physical[at].1.name
            )));
        }
        VulkanDevice::new(self, at, wrong, translators)
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        // SAFETY: every device made from this instance is dropped before it (VulkanDevice
        // owns the Vulkan it came from and destroys its device first).
        unsafe { self.instance.destroy_instance(None) };
    }
}

fn has_extension(instance: &ash::Instance, pd: vk::PhysicalDevice, name: &CStr) -> bool {
    // SAFETY: pd comes from this instance.
    unsafe { instance.enumerate_device_extension_properties(pd) }
        .unwrap_or_default()
        .iter()
        .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
}

/// Name, driver, versions, features and float controls of one physical device.
fn describe(instance: &ash::Instance, pd: vk::PhysicalDevice, index: usize) -> DeviceInfo {
    // SAFETY: pd comes from this instance, and the chained structs live across each call.
    unsafe {
        let props = instance.get_physical_device_properties(pd);
        let api = props.api_version;
        let core12 = api >= vk::API_VERSION_1_2;
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut controls = vk::PhysicalDeviceFloatControlsProperties::default();
        let has_driver = core12 || has_extension(instance, pd, ash::khr::driver_properties::NAME);
        let has_controls =
            core12 || has_extension(instance, pd, ash::khr::shader_float_controls::NAME);
        {
            let mut p2 = vk::PhysicalDeviceProperties2::default();
            if has_driver {
                p2 = p2.push_next(&mut driver);
            }
            if has_controls {
                p2 = p2.push_next(&mut controls);
            }
            instance.get_physical_device_properties2(pd, &mut p2);
        }
        let has_f16 = core12 || has_extension(instance, pd, ash::khr::shader_float16_int8::NAME);
        let mut f16 = vk::PhysicalDeviceShaderFloat16Int8Features::default();
        let features = {
            let mut f2 = vk::PhysicalDeviceFeatures2::default();
            if has_f16 {
                f2 = f2.push_next(&mut f16);
            }
            instance.get_physical_device_features2(pd, &mut f2);
            f2.features
        };
        let independence = match controls.denorm_behavior_independence {
            vk::ShaderFloatControlsIndependence::ALL => "all",
            vk::ShaderFloatControlsIndependence::TYPE_32_ONLY => "32-bit-only",
            _ => "none",
        };
        let driver_name = c_text(driver.driver_name_as_c_str());
        let driver_info = c_text(driver.driver_info_as_c_str());
        DeviceInfo {
            index,
            name: c_text(props.device_name_as_c_str()),
            driver: if driver_name.is_empty() {
                format!("vendor 0x{:04x}", props.vendor_id)
            } else {
                driver_name
            },
            driver_version: if driver_info.is_empty() {
                format!("0x{:08x}", props.driver_version)
            } else {
                driver_info
            },
            api_version: version_text(api),
            device_type: match props.device_type {
                vk::PhysicalDeviceType::CPU => "cpu",
                vk::PhysicalDeviceType::DISCRETE_GPU => "discrete-gpu",
                vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated-gpu",
                vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual-gpu",
                _ => "other",
            }
            .to_string(),
            float16: f16.shader_float16 == vk::TRUE,
            float64: features.shader_float64 == vk::TRUE,
            float_controls: FloatControls {
                denorm_flush_f32: controls.shader_denorm_flush_to_zero_float32 == vk::TRUE,
                denorm_preserve_f16: controls.shader_denorm_preserve_float16 == vk::TRUE,
                denorm_preserve_f64: controls.shader_denorm_preserve_float64 == vk::TRUE,
                signed_zero_inf_nan_f16: controls.shader_signed_zero_inf_nan_preserve_float16
                    == vk::TRUE,
                signed_zero_inf_nan_f32: controls.shader_signed_zero_inf_nan_preserve_float32
                    == vk::TRUE,
                signed_zero_inf_nan_f64: controls.shader_signed_zero_inf_nan_preserve_float64
                    == vk::TRUE,
                rounding_rtz_f16: controls.shader_rounding_mode_rtz_float16 == vk::TRUE,
                independence: independence.to_string(),
            },
            translators: Vec::new(),
        }
    }
}

/// A host-visible, coherent storage buffer.
struct Buffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    bytes: usize,
}

/// A compute pipeline with the descriptor set its shader declares ([`Layout`]).
struct Pipe {
    pipeline: vk::Pipeline,
    pipeline_layout: vk::PipelineLayout,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    layout: Layout,
}

/// What an exhaustive sweep keeps between dispatches: its kernel, pipeline and buffers.
struct Sweep {
    kernel: (&'static str, super::Family, Via),
    pipe: Pipe,
    input: Buffer,
    output: Buffer,
}

/// An opened device with the objects every dispatch shares.
pub struct VulkanDevice {
    info: DeviceInfo,
    device: ash::Device,
    memory_props: vk::PhysicalDeviceMemoryProperties,
    queue: vk::Queue,
    /// `maxTexelBufferElements`: the longest texel buffer a translated shader may read.
    max_texels: u32,
    /// Invocations a workgroup of the sweeps' shaders: [`SWEEP_WORKGROUP`] where the
    /// device's limits allow it, else [`WORKGROUP`].
    sweep_local: u32,
    commands: vk::CommandPool,
    fence: vk::Fence,
    wrong: Vec<String>,
    /// One per translated path asked for, configured for this device's float controls.
    translators: Vec<(Via, Box<dyn Translator>)>,
    /// The exhaustive sweep's pipeline and buffers, kept across its dispatches.
    sweep: Option<Sweep>,
    // Dropped last: the instance outlives the device.
    vulkan: Vulkan,
}

impl VulkanDevice {
    fn new(
        vulkan: Vulkan,
        at: usize,
        wrong: Vec<String>,
        translators: Vec<Box<dyn Translator>>,
    ) -> Result<VulkanDevice, ProbeError> {
        let (pd, mut info) = vulkan.physical[at].clone();
        let translators: Vec<(Via, Box<dyn Translator>)> = translators
            .into_iter()
            .map(|mut t| {
                t.configure(&info.float_controls);
                info.translators.push(t.info().clone());
                let via = t
                    .info()
                    .via
                    .parse::<Via>()
                    .expect("translators name their path");
                (via, t)
            })
            .collect();
        let instance = &vulkan.instance;
        // SAFETY: pd comes from this instance; every create info lives across its call, and
        // the objects made here are destroyed in Drop in reverse order.
        unsafe {
            let families = instance.get_physical_device_queue_family_properties(pd);
            let family = families
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .ok_or_else(|| ProbeError::NoDevice(format!("{}: no compute queue", info.name)))?
                as u32;
            let priorities = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&priorities)];
            let features = vk::PhysicalDeviceFeatures::default().shader_float64(info.float64);
            let mut f16 =
                vk::PhysicalDeviceShaderFloat16Int8Features::default().shader_float16(info.float16);
            let mut extensions = Vec::new();
            if vk::api_version_minor(instance.get_physical_device_properties(pd).api_version) < 2 {
                for name in [
                    ash::khr::shader_float_controls::NAME,
                    ash::khr::shader_float16_int8::NAME,
                ] {
                    if has_extension(instance, pd, name) {
                        extensions.push(name.as_ptr());
                    }
                }
            }
            let mut create = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_features(&features)
                .enabled_extension_names(&extensions);
            if info.float16 {
                create = create.push_next(&mut f16);
            }
            let device = instance
                .create_device(pd, &create, None)
                .map_err(vk_error("creating the device"))?;
            let queue = device.get_device_queue(family, 0);
            let commands = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(family)
                        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                    None,
                )
                .map_err(vk_error("creating the command pool"))?;
            let fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vk_error("creating a fence"))?;
            let memory_props = instance.get_physical_device_memory_properties(pd);
            let limits = instance.get_physical_device_properties(pd).limits;
            let max_texels = limits.max_texel_buffer_elements;
            let big = SWEEP_WORKGROUP as u32;
            let sweep_local = if limits.max_compute_work_group_invocations >= big
                && limits.max_compute_work_group_size[0] >= big
            {
                big
            } else {
                WORKGROUP as u32
            };
            Ok(VulkanDevice {
                info,
                device,
                memory_props,
                queue,
                max_texels,
                sweep_local,
                commands,
                fence,
                wrong,
                translators,
                sweep: None,
                vulkan,
            })
        }
    }

    fn buffer(&self, words: usize) -> Result<Buffer, ProbeError> {
        let bytes = (words.max(1) * 4) as u64;
        // SAFETY: the device is valid; the buffer is bound to memory it fits before use.
        unsafe {
            let buffer = self
                .device
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(bytes)
                        // Storage buffers for SPIR-V that declares them, texel buffers for
                        // SPIR-V that declares those (vkd3d-shader's UAVs).
                        .usage(
                            vk::BufferUsageFlags::STORAGE_BUFFER
                                | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
                                | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
                        )
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                )
                .map_err(vk_error("creating a buffer"))?;
            let req = self.device.get_buffer_memory_requirements(buffer);
            let wanted =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let kind = (0..self.memory_props.memory_type_count).find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && self.memory_props.memory_types[i as usize]
                        .property_flags
                        .contains(wanted)
            });
            let Some(kind) = kind else {
                self.device.destroy_buffer(buffer, None);
                return Err(ProbeError::Device(
                    "Vulkan: no host-visible coherent memory for the buffers".into(),
                ));
            };
            let memory = self
                .device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(kind),
                    None,
                )
                .map_err(vk_error("allocating buffer memory"))?;
            self.device
                .bind_buffer_memory(buffer, memory, 0)
                .map_err(vk_error("binding buffer memory"))?;
            Ok(Buffer {
                buffer,
                memory,
                bytes: bytes as usize,
            })
        }
    }

    fn write(&self, b: &Buffer, words: &[u32]) -> Result<(), ProbeError> {
        // SAFETY: the memory is host-visible, not in use by the device, and `bytes` long.
        unsafe {
            let p = self
                .device
                .map_memory(b.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vk_error("mapping memory"))? as *mut u32;
            let n = words.len().min(b.bytes / 4);
            std::ptr::copy_nonoverlapping(words.as_ptr(), p, n);
            self.device.unmap_memory(b.memory);
        }
        Ok(())
    }

    fn read(&self, b: &Buffer, words: usize) -> Result<Vec<u32>, ProbeError> {
        let mut out = Vec::new();
        self.read_into(b, words, &mut out)?;
        Ok(out)
    }

    /// The buffer's first `words` words into `out`, replacing what it held (copied once,
    /// into the capacity `out` has when it is enough).
    fn read_into(&self, b: &Buffer, words: usize, out: &mut Vec<u32>) -> Result<(), ProbeError> {
        let n = words.min(b.bytes / 4);
        out.clear();
        // SAFETY: the dispatch that wrote the memory has finished (its fence was waited on);
        // the mapping holds b.bytes bytes, at least n words, and lives until unmapped
        // after the copy.
        unsafe {
            let p = self
                .device
                .map_memory(b.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vk_error("mapping memory"))? as *const u32;
            out.extend_from_slice(std::slice::from_raw_parts(p, n));
            self.device.unmap_memory(b.memory);
        }
        Ok(())
    }

    fn free(&self, b: Buffer) {
        // SAFETY: no submitted work uses the buffer any more.
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }

    /// Builds the pipeline, runs one dispatch, waits for it.
    fn dispatch(
        &self,
        k: &Kernel,
        input: &Buffer,
        output: &Buffer,
        groups: u32,
    ) -> Result<(), ProbeError> {
        let pipe = self.pipeline(k, false)?;
        let run = self.submit(&pipe, input, output, groups);
        self.destroy_pipe(pipe);
        run
    }

    /// The SPIR-V of `k`'s shader (`indexed`: the exhaustive sweep's): written here for
    /// the direct path, else DXBC written here and translated.
    fn spirv(&self, k: &Kernel, indexed: bool) -> Result<Vec<u32>, ProbeError> {
        let wrong = self.wrong.iter().any(|w| w == k.name);
        if k.via == Via::Direct {
            return Ok(if indexed {
                shader::build_indexed(k, &self.info.float_controls, wrong, self.sweep_local)
            } else {
                shader::build(k, &self.info.float_controls, wrong)
            });
        }
        let blob = if indexed {
            dxbc::build_indexed(k, wrong, self.sweep_local)
        } else {
            dxbc::build(k, wrong)
        }
        .map_err(|e| ProbeError::Translator(format!("no DXBC: {e}")))?;
        let (_, translator) = self
            .translators
            .iter()
            .find(|(v, _)| *v == k.via)
            .ok_or_else(|| ProbeError::Device(format!("{}: no translator was opened", k.via)))?;
        translator.translate(&blob).map_err(ProbeError::Translator)
    }

    /// The compute pipeline of `k`'s shader (`indexed`: the exhaustive sweep's), with the
    /// descriptor set layout its SPIR-V declares.
    fn pipeline(&self, k: &Kernel, indexed: bool) -> Result<Pipe, ProbeError> {
        let code = self.spirv(k, indexed)?;
        let layout = layout::reflect(&code).map_err(|e| {
            ProbeError::Translator(format!(
                "{}: the SPIR-V of {} cannot run: {e}",
                k.via, k.name
            ))
        })?;
        let kind = |b: Binding| match b {
            Binding::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            Binding::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            Binding::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        };
        let declared: Vec<(u32, vk::DescriptorType)> = layout
            .input
            .map(|b| (0, kind(b)))
            .into_iter()
            .chain([(1, kind(layout.output))])
            .collect();
        // SAFETY: every create info lives across its call; each object made here is owned by
        // the returned Pipe and destroyed in destroy_pipe (or here when a later step fails).
        unsafe {
            let bindings: Vec<_> = declared
                .iter()
                .map(|&(b, t)| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b)
                        .descriptor_type(t)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let set_layout = self
                .device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .map_err(vk_error("creating the descriptor set layout"))?;
            let layouts = [set_layout];
            let pipeline_layout = match self.device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                None,
            ) {
                Ok(l) => l,
                Err(e) => {
                    self.device.destroy_descriptor_set_layout(set_layout, None);
                    return Err(vk_error("creating the pipeline layout")(e));
                }
            };
            let sizes: Vec<_> = declared
                .iter()
                .map(|&(_, t)| vk::DescriptorPoolSize::default().ty(t).descriptor_count(1))
                .collect();
            let pool = self.device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            );
            let module = self
                .device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None);
            let made = (|| -> Result<Pipe, ProbeError> {
                let pool = pool.map_err(vk_error("creating the descriptor pool"))?;
                let set = self
                    .device
                    .allocate_descriptor_sets(
                        &vk::DescriptorSetAllocateInfo::default()
                            .descriptor_pool(pool)
                            .set_layouts(&layouts),
                    )
                    .map_err(vk_error("allocating the descriptor set"))?[0];
                let module = module.map_err(vk_error("creating the shader module"))?;
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(module)
                    .name(c"main");
                let created = self.device.create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(pipeline_layout)],
                    None,
                );
                let pipeline =
                    created.map_err(|(_, e)| vk_error("creating the compute pipeline")(e))?[0];
                Ok(Pipe {
                    pipeline,
                    pipeline_layout,
                    set_layout,
                    pool,
                    set,
                    layout,
                })
            })();
            if let Ok(m) = module {
                self.device.destroy_shader_module(m, None);
            }
            if made.is_err() {
                if let Ok(p) = pool {
                    self.device.destroy_descriptor_pool(p, None);
                }
                self.device.destroy_pipeline_layout(pipeline_layout, None);
                self.device.destroy_descriptor_set_layout(set_layout, None);
            }
            // A translator's module the device will not take (a SPIR-V version past the
            // device's, a capability it lacks) is a finding about that path, not the end
            // of the run.
            made.map_err(|e| match e {
                ProbeError::Device(m) if k.via.translated() => ProbeError::Translator(format!(
                    "the device refused {}'s SPIR-V of {}: {m}",
                    k.via, k.name
                )),
                other => other,
            })
        }
    }

    fn destroy_pipe(&self, p: Pipe) {
        // SAFETY: every dispatch of the pipeline waited on its fence; each object is
        // destroyed once, the pool (and its set) before the layouts.
        unsafe {
            self.device.destroy_pipeline(p.pipeline, None);
            self.device.destroy_descriptor_pool(p.pool, None);
            self.device.destroy_pipeline_layout(p.pipeline_layout, None);
            self.device
                .destroy_descriptor_set_layout(p.set_layout, None);
        }
    }

    /// Runs one dispatch of `pipe` over the two buffers and waits for it.
    fn submit(
        &self,
        pipe: &Pipe,
        input: &Buffer,
        output: &Buffer,
        groups: u32,
    ) -> Result<(), ProbeError> {
        let slots: Vec<(u32, Binding, &Buffer)> = pipe
            .layout
            .input
            .map(|b| (0, b, input))
            .into_iter()
            .chain([(1, pipe.layout.output, output)])
            .collect();
        for &(_, b, buf) in &slots {
            if b.texel() && buf.bytes / 4 > self.max_texels as usize {
                return Err(ProbeError::Device(format!(
                    "Vulkan: a texel buffer of {} words is past the device's \
                     maxTexelBufferElements ({}); probe fewer lines (--count)",
                    buf.bytes / 4,
                    self.max_texels
                )));
            }
        }
        // SAFETY: the buffers and the pipeline are alive; the views live until the fence
        // says the GPU is done, and the command buffer is freed after it.
        unsafe {
            let mut views = Vec::new();
            for &(_, b, buf) in &slots {
                if b.texel() {
                    let view = self
                        .device
                        .create_buffer_view(
                            &vk::BufferViewCreateInfo::default()
                                .buffer(buf.buffer)
                                .format(vk::Format::R32_UINT)
                                .range(vk::WHOLE_SIZE),
                            None,
                        )
                        .map_err(vk_error("creating a buffer view"));
                    match view {
                        Ok(v) => views.push(v),
                        Err(e) => {
                            for v in views {
                                self.device.destroy_buffer_view(v, None);
                            }
                            return Err(e);
                        }
                    }
                } else {
                    views.push(vk::BufferView::null());
                }
            }
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = slots
                .iter()
                .map(|&(_, _, buf)| {
                    [vk::DescriptorBufferInfo::default()
                        .buffer(buf.buffer)
                        .range(vk::WHOLE_SIZE)]
                })
                .collect();
            let view_arrays: Vec<[vk::BufferView; 1]> = views.iter().map(|&v| [v]).collect();
            let writes: Vec<_> = slots
                .iter()
                .enumerate()
                .map(|(i, &(binding, b, _))| {
                    let w = vk::WriteDescriptorSet::default()
                        .dst_set(pipe.set)
                        .dst_binding(binding);
                    match b {
                        Binding::StorageBuffer => w
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .buffer_info(&infos[i]),
                        Binding::StorageTexelBuffer => w
                            .descriptor_type(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
                            .texel_buffer_view(&view_arrays[i]),
                        Binding::UniformTexelBuffer => w
                            .descriptor_type(vk::DescriptorType::UNIFORM_TEXEL_BUFFER)
                            .texel_buffer_view(&view_arrays[i]),
                    }
                })
                .collect();
            self.device.update_descriptor_sets(&writes, &[]);
            let ran = self.record_and_wait(pipe, groups);
            for v in views.into_iter().filter(|v| *v != vk::BufferView::null()) {
                self.device.destroy_buffer_view(v, None);
            }
            ran
        }
    }

    /// Records the dispatch, submits it and waits for its fence.
    fn record_and_wait(&self, pipe: &Pipe, groups: u32) -> Result<(), ProbeError> {
        // SAFETY: the pipeline and its set are alive and written; the command buffer is
        // freed after the fence says the GPU is done with it.
        unsafe {
            let cmd = self
                .device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.commands)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(vk_error("allocating a command buffer"))?[0];
            let recorded = (|| -> Result<(), vk::Result> {
                self.device.begin_command_buffer(
                    cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )?;
                self.device
                    .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipe.pipeline);
                self.device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    pipe.pipeline_layout,
                    0,
                    &[pipe.set],
                    &[],
                );
                self.device.cmd_dispatch(cmd, groups, 1, 1);
                // The shader's writes must be visible to the host's reads.
                let barrier = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ);
                self.device.cmd_pipeline_barrier(
                    cmd,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[barrier],
                    &[],
                    &[],
                );
                self.device.end_command_buffer(cmd)?;
                let cmds = [cmd];
                self.device.queue_submit(
                    self.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cmds)],
                    self.fence,
                )?;
                self.device.wait_for_fences(&[self.fence], true, u64::MAX)?;
                self.device.reset_fences(&[self.fence])
            })();
            self.device.free_command_buffers(self.commands, &[cmd]);
            recorded.map_err(vk_error("running the dispatch"))
        }
    }
}

impl Device for VulkanDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn run(&mut self, k: &Kernel, words: &[u32], lines: usize) -> Result<Vec<u32>, ProbeError> {
        // Pad to whole workgroups: the extra invocations read zeros and write past the end
        // of the lines, which is then cut off.
        let groups = lines.div_ceil(WORKGROUP);
        let padded = groups * WORKGROUP;
        let input = self.buffer(padded * k.input_words())?;
        let output = self.buffer(padded * k.output_words())?;
        let run = self
            .write(&input, words)
            .and_then(|()| self.dispatch(k, &input, &output, groups as u32))
            .and_then(|()| self.read(&output, lines * k.output_words()));
        self.free(input);
        self.free(output);
        run
    }

    fn run_indexed(&mut self, k: &Kernel, base: u64, lines: usize) -> Result<Vec<u32>, ProbeError> {
        let mut out = Vec::new();
        self.run_indexed_into(k, base, lines, &mut out)?;
        Ok(out)
    }

    fn run_indexed_into(
        &mut self,
        k: &Kernel,
        base: u64,
        lines: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), ProbeError> {
        // Invocations run SWEEP_LINES_PER_INVOCATION lines each on the direct path.
        let per = match k.via {
            Via::Direct => SWEEP_LINES_PER_INVOCATION,
            _ => 1,
        };
        let local = self.sweep_local as usize * per;
        let groups = lines.div_ceil(local);
        let padded = groups * local;
        let key = (k.name, k.family, k.via);
        let fits = self
            .sweep
            .as_ref()
            .is_some_and(|sw| sw.kernel == key && sw.output.bytes >= padded * k.output_words() * 4);
        if !fits {
            self.end_sweep();
            let pipe = self.pipeline(k, true)?;
            let input = self.buffer(1)?;
            let output = self.buffer(padded * k.output_words())?;
            self.sweep = Some(Sweep {
                kernel: key,
                pipe,
                input,
                output,
            });
        }
        let sw = self.sweep.as_ref().expect("made above");
        // Sweeps have at most 2^32 lines: the first index of every dispatch fits a word.
        self.write(&sw.input, &[base as u32])?;
        self.submit(&sw.pipe, &sw.input, &sw.output, groups as u32)?;
        self.read_into(&sw.output, lines * k.output_words(), out)
    }
}

impl VulkanDevice {
    /// Destroys the sweep's pipeline and buffers.
    fn end_sweep(&mut self) {
        if let Some(sw) = self.sweep.take() {
            self.destroy_pipe(sw.pipe);
            self.free(sw.input);
            self.free(sw.output);
        }
    }
}

impl Drop for VulkanDevice {
    fn drop(&mut self) {
        self.end_sweep();
        // SAFETY: all work has finished (every dispatch waits on its fence), and each object
        // is destroyed once, children before the device.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.commands, None);
            self.device.destroy_device(None);
        }
        let _ = &self.vulkan;
    }
}
