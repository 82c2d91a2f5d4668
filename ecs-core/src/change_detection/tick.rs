/// A point in the world's change clock.
///
/// The clock is a wrapping `u32`. Comparisons are made relative to the
/// current tick, so they stay right across the wrap as long as no stored
/// tick is older than [`MAX_CHANGE_AGE`]; `World::check_change_ticks` clamps
/// older ticks to keep that true.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Tick {
    tick: u32,
}

/// How often `check_change_ticks` must run (in ticks) so nothing wraps
/// unnoticed.
pub const CHECK_TICK_THRESHOLD: u32 = 518_400_000;

/// The oldest a tick may get before it is clamped.
pub const MAX_CHANGE_AGE: u32 = u32::MAX - (2 * CHECK_TICK_THRESHOLD - 1);

impl Tick {
    /// The largest tick value.
    pub const MAX: Tick = Tick::new(MAX_CHANGE_AGE);

    /// A tick with the given raw value.
    #[inline]
    pub const fn new(tick: u32) -> Tick {
        Tick { tick }
    }

    /// The raw value.
    #[inline]
    pub const fn get(self) -> u32 {
        self.tick
    }

    /// Sets the raw value.
    #[inline]
    pub fn set(&mut self, tick: u32) {
        self.tick = tick;
    }

    /// Whether this tick is newer than `last_run`, judged from `this_run`.
    #[inline]
    pub fn is_newer_than(self, last_run: Tick, this_run: Tick) -> bool {
        let ticks_since_insert = this_run.relative_to(self).tick.min(MAX_CHANGE_AGE);
        let ticks_since_system = this_run.relative_to(last_run).tick.min(MAX_CHANGE_AGE);
        ticks_since_system > ticks_since_insert
    }

    /// How many ticks `self` is ahead of `other`, wrapping.
    #[inline]
    pub fn relative_to(self, other: Tick) -> Tick {
        Tick::new(self.tick.wrapping_sub(other.tick))
    }

    /// Clamps a tick older than [`MAX_CHANGE_AGE`] relative to `tick` (a
    /// [`Tick`], or the [`CheckChangeTicks`] event's present tick).
    /// Returns whether it was clamped.
    #[inline]
    pub fn check_tick(&mut self, tick: impl Into<Tick>) -> bool {
        let tick = tick.into();
        let age = tick.relative_to(*self);
        if age.get() > Tick::MAX.get() {
            *self = tick.relative_to(Tick::MAX);
            true
        } else {
            false
        }
    }
}

/// The event [`World::check_change_ticks`](crate::world::World::check_change_ticks)
/// triggers after it clamped the ticks the world stores: code that keeps
/// ticks of its own clamps them against it, so they too stay comparable.
///
/// ```
/// use ecs::change_detection::{CheckChangeTicks, Tick};
/// use ecs::prelude::*;
///
/// /// A tick this program keeps outside the world, and the last check.
/// #[derive(Resource)]
/// struct Seen {
///     tick: Tick,
///     checked_at: Option<Tick>,
/// }
///
/// let mut world = World::new();
/// let tick = world.change_tick();
/// world.insert_resource(Seen { tick, checked_at: None });
/// world.add_observer(|check: On<CheckChangeTicks>, mut seen: ResMut<Seen>| {
///     // Clamped if it grew older than `MAX_CHANGE_AGE`.
///     seen.tick.check_tick(*check);
///     seen.checked_at = Some(check.present_tick());
/// });
/// // Schedules and systems check every `CHECK_TICK_THRESHOLD` ticks; this
/// // checks now.
/// let check = world.check_change_ticks_now();
/// assert_eq!(world.resource::<Seen>().checked_at, Some(check.present_tick()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckChangeTicks(pub(crate) Tick);

impl CheckChangeTicks {
    /// The tick every other tick was compared with: the world's change
    /// tick at the check.
    #[inline]
    pub fn present_tick(self) -> Tick {
        self.0
    }
}

impl From<CheckChangeTicks> for Tick {
    #[inline]
    fn from(check: CheckChangeTicks) -> Tick {
        check.0
    }
}

/// A tick together with where it falls on the world's clock that does not
/// wrap (see [`World::check_change_ticks`](crate::world::World::check_change_ticks)).
///
/// The holders of a tick that the world does not own (systems, observers)
/// keep one, and clamp it themselves before each run: the count tells how
/// old the tick really is, however many times the `u32` clock wrapped
/// while they sat idle, where [`Tick::check_tick`] sees only the wrapped
/// distance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CountedTick {
    pub(crate) tick: Tick,
    pub(crate) count: u64,
}

impl CountedTick {
    /// `MAX_CHANGE_AGE` before `now`: as the last run of a reader that
    /// has not run yet, it makes every value not clamped count as new.
    #[inline]
    pub(crate) fn oldest_before(now: CountedTick) -> CountedTick {
        CountedTick {
            tick: now.tick.relative_to(Tick::MAX),
            count: now.count - u64::from(MAX_CHANGE_AGE),
        }
    }

    /// Clamps `self` to `MAX_CHANGE_AGE` before `now` if it is older than
    /// that, as the world clamps the ticks it stores. Returns whether it
    /// was clamped.
    #[inline]
    pub(crate) fn clamp(&mut self, now: CountedTick) -> bool {
        if now.count.saturating_sub(self.count) > u64::from(MAX_CHANGE_AGE) {
            *self = CountedTick::oldest_before(now);
            true
        } else {
            false
        }
    }
}

/// The added and changed ticks of one component value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ComponentTicks {
    /// When the value was added.
    pub added: Tick,
    /// When the value was last changed (or added).
    pub changed: Tick,
}

impl ComponentTicks {
    /// Ticks of a value added (and so changed) at `tick`.
    #[inline]
    pub fn new(tick: Tick) -> Self {
        ComponentTicks {
            added: tick,
            changed: tick,
        }
    }

    /// Whether the value was added after `last_run`.
    #[inline]
    pub fn is_added(&self, last_run: Tick, this_run: Tick) -> bool {
        self.added.is_newer_than(last_run, this_run)
    }

    /// Whether the value changed after `last_run`.
    #[inline]
    pub fn is_changed(&self, last_run: Tick, this_run: Tick) -> bool {
        self.changed.is_newer_than(last_run, this_run)
    }

    /// Marks the value changed at `change_tick` (this copy of the ticks
    /// only: it writes nothing back to the world).
    #[inline]
    pub fn set_changed(&mut self, change_tick: Tick) {
        self.changed = change_tick;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_than_across_wrap() {
        let last = Tick::new(u32::MAX - 5);
        let this = Tick::new(10);
        assert!(Tick::new(u32::MAX - 1).is_newer_than(last, this));
        assert!(Tick::new(3).is_newer_than(last, this));
        assert!(!Tick::new(u32::MAX - 10).is_newer_than(last, this));
    }

    #[test]
    fn a_counted_tick_is_clamped_by_its_real_age() {
        let at = |count: u64| CountedTick {
            tick: Tick::new(count as u32),
            count,
        };
        let max = u64::from(MAX_CHANGE_AGE);
        let start = 1 << 32;
        // A full wrap later the wrapped distance is 0; the count says 2^32.
        let mut idle = at(start + 5);
        assert!(idle.clamp(at(start + 5 + (1 << 32))));
        assert_eq!(idle, at(start + 5 + (1 << 32) - max));
        let mut recent = at(start + 5);
        assert!(!recent.clamp(at(start + 5 + max)));
        assert!(recent.clamp(at(start + 6 + max)));
    }

    #[test]
    fn check_tick_clamps_old_values() {
        let now = Tick::new(u32::MAX / 2 + 3_000_000_000u32 / 2);
        let mut old = now.relative_to(Tick::new(MAX_CHANGE_AGE + 10));
        assert!(old.check_tick(now));
        assert_eq!(now.relative_to(old).get(), MAX_CHANGE_AGE);
        let mut recent = now.relative_to(Tick::new(5));
        assert!(!recent.check_tick(now));
    }
}
