//! Which clips an impostor atlas holds, the CPU side of baking on demand.
//! An atlas has a few slots ([`super::ImpostorLayout::slots`]), each room
//! for one clip's frames from every view. cull.comp says which clips the
//! crowd wants as impostors (a flag per clip, read back a few frames
//! later); a wanted clip without a slot waits for one, then is baked a
//! bounded number of units a frame ([`AtlasSlots::take_units`]), and only
//! once every unit is baked does the slot table cull.comp reads
//! ([`AtlasSlots::table`]) name it. Until then its instances are drawn as
//! meshes. When every slot is taken, the slot wanted least recently goes
//! to the waiting clip, once it has gone [`IDLE_FRAMES_BEFORE_EVICTION`]
//! frames unwanted; a clip still in use is never evicted, so a crowd
//! wanting more clips than there are slots keeps meshes for the rest
//! rather than baking in circles.

use std::ops::Range;

pub use crate::shared_constants::IMPOSTOR_UNBAKED;

/// Frames a baked slot must go unwanted before another clip may take it:
/// well past the frames a request takes to come back from the GPU (the
/// frames in flight), and long enough that a clip played now and then
/// (a one-shot, a gait) is not baked afresh each time.
pub const IDLE_FRAMES_BEFORE_EVICTION: u64 = 120;

/// One model's atlas slots and the clips waiting for one.
#[derive(Clone, Debug)]
pub struct AtlasSlots {
    slots: Vec<Slot>,
    /// Per clip of the model, the slot it is baked or being baked in.
    clip_slot: Vec<Option<u32>>,
    /// Clips wanted without a slot, first wanted first.
    waiting: Vec<Waiting>,
    units_per_slot: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    clip: Option<u32>,
    /// Units baked of `clip`; the slot is shown once all are.
    baked_units: u32,
    /// The last frame whose crowd wanted `clip`.
    last_wanted: u64,
}

#[derive(Clone, Copy, Debug)]
struct Waiting {
    clip: u32,
    last_wanted: u64,
}

/// Baking to do now: units `units` of the clip `clip` into slot `slot`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BakeUnits {
    pub slot: u32,
    pub clip: u32,
    pub units: Range<u32>,
    /// The clip the slot held before, evicted to make room (its first
    /// units only).
    pub evicted: Option<u32>,
}

impl BakeUnits {
    /// The slot's first units: its clip's poses are to be uploaded.
    pub fn starts(&self) -> bool {
        self.units.start == 0
    }
}

impl AtlasSlots {
    /// `slots` empty slots for a model with `clips` clips, each baked in
    /// `units_per_slot` units.
    pub fn new(slots: u32, clips: u32, units_per_slot: u32) -> AtlasSlots {
        AtlasSlots {
            slots: vec![Slot::default(); slots as usize],
            clip_slot: vec![None; clips as usize],
            waiting: Vec::new(),
            units_per_slot: units_per_slot.max(1),
        }
    }

    pub fn units_per_slot(&self) -> u32 {
        self.units_per_slot
    }

    /// The crowd of frame `frame` wanted clip `clip` as an impostor.
    pub fn want(&mut self, clip: u32, frame: u64) {
        let Some(&held) = self.clip_slot.get(clip as usize) else {
            return;
        };
        if let Some(slot) = held {
            let slot = &mut self.slots[slot as usize];
            slot.last_wanted = slot.last_wanted.max(frame);
        } else if let Some(waiting) = self.waiting.iter_mut().find(|w| w.clip == clip) {
            waiting.last_wanted = waiting.last_wanted.max(frame);
        } else {
            self.waiting.push(Waiting {
                clip,
                last_wanted: frame,
            });
        }
    }

    /// Per clip, its slot once baked, else [`IMPOSTOR_UNBAKED`]: the
    /// table cull.comp reads.
    pub fn table(&self) -> impl Iterator<Item = u32> + '_ {
        self.clip_slot.iter().map(|held| match *held {
            Some(slot) if self.slots[slot as usize].baked_units == self.units_per_slot => slot,
            _ => IMPOSTOR_UNBAKED,
        })
    }

    /// The clips baked now.
    pub fn baked_clips(&self) -> impl Iterator<Item = u32> + '_ {
        self.table()
            .enumerate()
            .filter(|&(_, slot)| slot != IMPOSTOR_UNBAKED)
            .map(|(clip, _)| clip as u32)
    }

    /// Up to `max_units` units to bake in frame `frame`, of one slot: the
    /// slot being baked goes on; otherwise the waiting clip wanted first
    /// takes a free slot, or the one wanted least recently once idle long
    /// enough. `None`: nothing can be baked now. Waiting clips no longer
    /// wanted are forgotten.
    pub fn take_units(&mut self, frame: u64, max_units: u32) -> Option<BakeUnits> {
        let stale = |last: u64| last + IDLE_FRAMES_BEFORE_EVICTION < frame;
        self.waiting.retain(|w| !stale(w.last_wanted));
        let units = self.units_per_slot;
        let mut evicted = None;
        let baking = self
            .slots
            .iter()
            .position(|s| s.clip.is_some() && s.baked_units < units);
        let slot = match baking {
            Some(slot) => slot,
            None => {
                let waiting = *self.waiting.first()?;
                let free = self.slots.iter().position(|s| s.clip.is_none());
                let least_wanted = || {
                    (0..self.slots.len())
                        .filter(|&s| stale(self.slots[s].last_wanted))
                        .min_by_key(|&s| self.slots[s].last_wanted)
                };
                let slot = free.or_else(least_wanted)?;
                if let Some(old) = self.slots[slot].clip {
                    self.clip_slot[old as usize] = None;
                    evicted = Some(old);
                }
                self.waiting.remove(0);
                self.clip_slot[waiting.clip as usize] = Some(slot as u32);
                self.slots[slot] = Slot {
                    clip: Some(waiting.clip),
                    baked_units: 0,
                    last_wanted: waiting.last_wanted,
                };
                slot
            }
        };
        let held = &mut self.slots[slot];
        let start = held.baked_units;
        let end = (start + max_units.max(1)).min(units);
        held.baked_units = end;
        Some(BakeUnits {
            slot: slot as u32,
            clip: held.clip.expect("a baking slot holds a clip"),
            units: start..end,
            evicted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(slots: &AtlasSlots) -> Vec<u32> {
        slots.table().collect()
    }

    const U: u32 = IMPOSTOR_UNBAKED;

    #[test]
    fn a_wanted_clip_is_shown_only_once_every_unit_is_baked() {
        let mut atlas = AtlasSlots::new(2, 3, 5);
        assert_eq!(
            atlas.take_units(0, 4),
            None,
            "nothing wanted, nothing baked"
        );
        atlas.want(2, 0);
        let first = atlas.take_units(1, 4).unwrap();
        assert_eq!(
            first,
            BakeUnits {
                slot: 0,
                clip: 2,
                units: 0..4,
                evicted: None,
            }
        );
        assert!(first.starts());
        assert_eq!(table(&atlas), [U, U, U]);
        let rest = atlas.take_units(2, 4).unwrap();
        assert_eq!(rest.units, 4..5);
        assert!(!rest.starts());
        assert_eq!(table(&atlas), [U, U, 0]);
        assert_eq!(atlas.take_units(3, 4), None, "nothing left to bake");
        assert_eq!(atlas.baked_clips().collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn clips_take_free_slots_first_wanted_first_and_one_at_a_time() {
        let mut atlas = AtlasSlots::new(2, 3, 1);
        atlas.want(1, 0);
        atlas.want(0, 0);
        atlas.want(1, 1);
        assert_eq!(atlas.take_units(1, 9).unwrap().clip, 1);
        assert_eq!(atlas.take_units(1, 9).unwrap().clip, 0);
        assert_eq!(table(&atlas), [1, 0, U]);
        // Both slots were wanted lately: clip 2 waits, meshes meanwhile.
        atlas.want(2, 2);
        assert_eq!(atlas.take_units(3, 9), None);
        assert_eq!(table(&atlas), [1, 0, U]);
    }

    #[test]
    fn the_slot_wanted_least_recently_goes_once_idle_and_never_before() {
        let mut atlas = AtlasSlots::new(2, 3, 1);
        atlas.want(0, 0);
        atlas.want(1, 0);
        atlas.take_units(0, 1);
        atlas.take_units(0, 1);
        // Clip 0 stays in use, clip 1 is not wanted after frame 10.
        atlas.want(1, 10);
        let late = 10 + IDLE_FRAMES_BEFORE_EVICTION + 1;
        for frame in (0..=late).step_by(10) {
            atlas.want(0, frame);
        }
        atlas.want(2, late);
        assert_eq!(
            atlas.take_units(late - 1, 1),
            None,
            "clip 1 is not idle long enough"
        );
        let taken = atlas.take_units(late, 1).unwrap();
        assert_eq!((taken.slot, taken.clip, taken.evicted), (1, 2, Some(1)));
        assert_eq!(table(&atlas), [0, U, 1]);
        // Wanted again, the evicted clip waits its turn.
        atlas.want(1, late);
        assert_eq!(atlas.take_units(late + 1, 1), None);
    }

    #[test]
    fn a_clip_no_longer_wanted_stops_waiting() {
        let mut atlas = AtlasSlots::new(1, 2, 1);
        atlas.want(0, 0);
        atlas.take_units(0, 1);
        atlas.want(1, 0);
        // Past its idle frames clip 0 could go, but clip 1 was forgotten.
        let late = IDLE_FRAMES_BEFORE_EVICTION + 1;
        assert_eq!(atlas.take_units(late, 1), None);
        assert_eq!(table(&atlas), [0, U]);
    }
}
