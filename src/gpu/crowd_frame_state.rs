//! What the frame loop remembers about the current crowd from one frame to
//! the next: where the agents left the instances, and per frame slot what
//! its buffers hold and what its last frame asked for. It lives as long as
//! the crowd's resources (a rebuilt crowd starts from
//! [`CrowdFrameState::default`]) but belongs to the frame loop, which alone
//! reads and writes it.

use super::crowd_resources::CrowdResources;
use super::frame::FRAMES_IN_FLIGHT;
use super::passes::agents::AgentStep;

#[derive(Clone, Copy, Debug, Default)]
pub struct CrowdFrameState {
    /// The agent pass has moved the instances off their placements:
    /// switching locomotion off puts them back (agents.comp's
    /// `RETURN_HOME`).
    pub placements_moved: bool,
    pub slots: [SlotState; FRAMES_IN_FLIGHT],
}

/// Per frame slot, what its crowd buffers hold.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlotState {
    /// Which `FrameInput::instances_version` the slot's instance
    /// animation buffer holds: all of it, or with `walkers_moved` only the
    /// instances of the models that stand.
    pub instances_version: Option<u64>,
    /// The agent pass wrote the walking models' instance animation here.
    pub walkers_moved: bool,
    /// The last frame in the slot, by index, and the skinning palette rows
    /// it wanted: read back when it is done, applied before the slot's
    /// next frame is recorded.
    pub palette_wanted: Option<(u64, u32)>,
}

impl CrowdFrameState {
    /// What the agent pass does to `crowd` in a frame with locomotion
    /// `on`, if anything: walk, or once after locomotion went off, put
    /// everyone back; none without agents. Notes where that leaves the
    /// instances.
    pub fn agent_step(&mut self, crowd: &CrowdResources, on: bool) -> Option<AgentStep> {
        crowd.agents.as_ref()?;
        let step = match (on, self.placements_moved) {
            (true, _) => AgentStep::Walk,
            (false, true) => AgentStep::ReturnHome,
            (false, false) => return None,
        };
        self.placements_moved = on;
        Some(step)
    }
}
