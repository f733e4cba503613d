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
    /// The most skinning palette rows a done frame wanted, and the first
    /// frame, by index, that wanted that many: every slot grows to it
    /// before its next frame.
    pub palette_wanted: Option<(u64, u32)>,
    /// The latest done frame, by index, and whether its palette ran short.
    pub last_done: Option<(u64, bool)>,
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
}

impl CrowdFrameState {
    /// Notes what done frame `index` wanted of a palette of `rows` rows
    /// (`None`: CPU animation, a row per instance, never short).
    pub fn note_palette(&mut self, index: u64, wanted: u32, rows: Option<u32>) {
        if self.palette_wanted.is_none_or(|(_, most)| wanted > most) {
            self.palette_wanted = Some((index, wanted));
        }
        let short = rows.is_some_and(|rows| wanted > rows);
        if self.last_done.is_none_or(|(last, _)| index > last) {
            self.last_done = Some((index, short));
        }
    }

    /// Whether the latest done frame's palette ran short.
    pub fn last_done_ran_short(&self) -> bool {
        self.last_done.is_some_and(|(_, short)| short)
    }

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
