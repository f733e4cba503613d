//! The window's rebuilds: another crowd size or mix (only the crowd-sized
//! resources are made again), and the models reloaded with the other
//! influence limit (everything that lives as long as the model). A crowd
//! the GPU cannot hold, or a model that no longer loads, is a warning and
//! the window goes on drawing what it drew.

use std::rc::Rc;

use super::{Live, Reload};
use crate::app::crowd_state::{CrowdSpec, CrowdState};
use crate::app::{overlay, AppError};
use crate::gpu::GpuError;
use crate::skin::InfluenceLimit;

impl Live {
    /// A crowd of `count`: the renderer rebuilds only its crowd-sized
    /// buffers. A crowd the GPU cannot hold is a warning, and the current
    /// one stays, drawn as before.
    pub(super) fn resize_crowd(&mut self, count: u32) -> Result<(), AppError> {
        if count == self.scene.crowd.spec.instances {
            return Ok(());
        }
        let spec = CrowdSpec {
            instances: count,
            ..self.scene.crowd.spec
        };
        let shares = self.scene.crowd.shares.clone();
        self.rebuild_crowd(spec, &shares)
    }

    /// The crowd `spec` asks for, laid out anew, as [`Live::resize_crowd`]
    /// says.
    pub(super) fn rebuild_crowd(
        &mut self,
        spec: CrowdSpec,
        shares: &[f32],
    ) -> Result<(), AppError> {
        let count = spec.instances;
        let refused = |error: GpuError| -> Result<(), AppError> {
            let error = AppError::from(error);
            if error.is_crowd_too_large() {
                log::warn!("{error}");
                Ok(())
            } else {
                Err(error)
            }
        };
        // Asked first: the CPU side of a crowd grows with it too.
        if let Err(error) = self.renderer.check_crowd_fits(count) {
            return refused(error);
        }
        let cast = &self.scene.cast;
        let crowd = CrowdState::new(&cast.models, (shares, &cast.layers), spec);
        let agents = crowd.gpu_agents();
        if let Err(error) =
            self.renderer
                .set_crowd_with_agents(&self.ctx, &crowd.placements(), agents.as_ref())
        {
            return refused(error);
        }
        self.scene.crowd = crowd;
        self.visible = None;
        // Same view direction, the new crowd in view.
        self.scene
            .camera
            .fit(self.scene.crowd.outline(), self.aspect());
        Ok(())
    }

    /// Between 4 and 8 joints per vertex: the model is loaded again from
    /// its files with the other limit and the renderer rebuilds what lives
    /// as long as the model; the crowd keeps its places, clips and clock. A
    /// model that no longer loads, or changed under us, or a crowd that
    /// would not fit is a warning, and everything stays as it was.
    pub(super) fn switch_influences(&mut self, reload: Reload) -> Result<(), AppError> {
        let limit = match self.scene.cast.models[0].influences() {
            InfluenceLimit::Four => InfluenceLimit::Eight,
            InfluenceLimit::Eight => InfluenceLimit::Four,
        };
        let cast = match reload(limit) {
            Ok(cast) => cast,
            Err(error) => {
                log::warn!("{} influences: {error}", limit.count());
                return Ok(());
            }
        };
        let old = &self.scene.cast.models;
        let changed = cast.models.len() != old.len()
            || cast.models.iter().zip(old.iter()).any(|(new, old)| {
                new.skeleton.parents != old.skeleton.parents || new.clips.len() != old.clips.len()
            });
        if changed {
            log::warn!(
                "{} influences: a model changed on disk since it was loaded; restart to see it",
                limit.count(),
            );
            return Ok(());
        }
        let crowd = &self.scene.crowd;
        let agents = crowd.gpu_agents();
        match self.renderer.set_model(
            &self.ctx,
            &cast.models,
            &crowd.placements(),
            agents.as_ref(),
        ) {
            Ok(()) => {}
            Err(error @ GpuError::CrowdTooLarge { .. }) => {
                log::warn!("{} influences: {}", limit.count(), AppError::from(error));
                return Ok(());
            }
            Err(error) => return Err(error.into()),
        }
        self.scene.cast = Rc::new(cast);
        self.visible = None;
        self.max_instances = overlay::crowd_limit(&self.renderer);
        Ok(())
    }
}
