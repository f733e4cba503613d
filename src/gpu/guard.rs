//! Unwinding half-built objects. Every constructor in `gpu/` creates its
//! parts one by one; when a later step fails, what the earlier ones made
//! must be destroyed, or the validation layer reports it (and a long-running
//! window leaks on every failed crowd resize). Wrapping each part in a
//! [`Guard`] as it is made turns every `?` into a correct unwind, and
//! [`Guard::keep`] hands the parts over once nothing can fail any more.

use std::ops::{Deref, DerefMut};

use ash::vk;

use super::Context;

/// Something that owns Vulkan objects and gives them back to `ctx`.
pub trait Destroy {
    fn destroy(self, ctx: &Context);
}

/// Destroys its value when dropped, unless [`Guard::keep`] took it.
pub struct Guard<'c, T: Destroy> {
    ctx: &'c Context,
    value: Option<T>,
}

/// `guard(ctx, create_thing(ctx)?)`: the thing is destroyed if the
/// constructor returns early.
pub fn guard<T: Destroy>(ctx: &Context, value: T) -> Guard<'_, T> {
    Guard {
        ctx,
        value: Some(value),
    }
}

impl<T: Destroy> Guard<'_, T> {
    /// The value, no longer destroyed on drop: the constructor succeeded.
    pub fn keep(mut self) -> T {
        self.value.take().expect("a guard is kept once")
    }
}

impl<T: Destroy> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("a kept guard is gone")
    }
}

impl<T: Destroy> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("a kept guard is gone")
    }
}

impl<T: Destroy> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        if let Some(value) = self.value.take() {
            value.destroy(self.ctx);
        }
    }
}

impl<T: Destroy> Destroy for Vec<T> {
    fn destroy(self, ctx: &Context) {
        for value in self {
            value.destroy(ctx);
        }
    }
}

impl<T: Destroy> Destroy for Option<T> {
    fn destroy(self, ctx: &Context) {
        if let Some(value) = self {
            value.destroy(ctx);
        }
    }
}

/// Plain handles, each with its `vkDestroy*`.
macro_rules! destroy_handle {
    ($($handle:ty => $destroy:ident),* $(,)?) => {$(
        impl Destroy for $handle {
            fn destroy(self, ctx: &Context) {
                unsafe { ctx.device.$destroy(self, None) };
            }
        }
    )*};
}

destroy_handle!(
    vk::Pipeline => destroy_pipeline,
    vk::PipelineLayout => destroy_pipeline_layout,
    vk::DescriptorSetLayout => destroy_descriptor_set_layout,
    // Destroying a pool frees the sets allocated from it.
    vk::DescriptorPool => destroy_descriptor_pool,
    vk::Sampler => destroy_sampler,
    vk::QueryPool => destroy_query_pool,
    vk::Fence => destroy_fence,
    vk::Semaphore => destroy_semaphore,
    // Destroying a pool frees its command buffers.
    vk::CommandPool => destroy_command_pool,
    vk::ShaderModule => destroy_shader_module,
    vk::ImageView => destroy_image_view,
);
