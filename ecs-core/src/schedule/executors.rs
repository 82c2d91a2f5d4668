//! bevy's way of choosing a schedule's executor, `Schedule::set_executor`
//! with an executor value, over the two executors built in.
//!
//! ```text
//! schedule.set_executor(SingleThreadedExecutor::new())
//!     == schedule.set_executor_kind(ExecutorKind::SingleThreaded)
//! ```

use super::{ExecutorKind, Schedule};

mod sealed {
    pub trait Sealed {}
}

/// An executor value for [`Schedule::set_executor`]: one of the two built
/// in, [`SingleThreadedExecutor`] and [`MultiThreadedExecutor`]. Unlike in
/// bevy, the trait is sealed: a schedule runs its systems with one of
/// those two, and an executor of your own cannot be plugged in.
pub trait SystemExecutor: Send + Sync + sealed::Sealed {
    /// The built-in executor this value stands for.
    fn kind(&self) -> ExecutorKind;
}

/// Runs every system on the calling thread, in the schedule's total order
/// ([`ExecutorKind::SingleThreaded`]).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::{ExecutorKind, SingleThreadedExecutor};
///
/// let mut schedule = Schedule::default();
/// schedule.set_executor(SingleThreadedExecutor::new());
/// assert_eq!(schedule.executor(), ExecutorKind::SingleThreaded);
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct SingleThreadedExecutor {
    _private: (),
}

impl SingleThreadedExecutor {
    /// The single-threaded executor.
    pub const fn new() -> Self {
        SingleThreadedExecutor { _private: () }
    }
}

/// Runs systems that do not conflict at once on rayon's thread pool
/// ([`ExecutorKind::MultiThreaded`], the default).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::{ExecutorKind, MultiThreadedExecutor};
///
/// let mut schedule = Schedule::single_threaded();
/// schedule.set_executor(MultiThreadedExecutor::new());
/// assert_eq!(schedule.executor(), ExecutorKind::MultiThreaded);
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct MultiThreadedExecutor {
    _private: (),
}

impl MultiThreadedExecutor {
    /// The multi-threaded executor.
    pub const fn new() -> Self {
        MultiThreadedExecutor { _private: () }
    }
}

impl sealed::Sealed for SingleThreadedExecutor {}
impl sealed::Sealed for MultiThreadedExecutor {}

impl SystemExecutor for SingleThreadedExecutor {
    fn kind(&self) -> ExecutorKind {
        ExecutorKind::SingleThreaded
    }
}

impl SystemExecutor for MultiThreadedExecutor {
    fn kind(&self) -> ExecutorKind {
        ExecutorKind::MultiThreaded
    }
}

impl Schedule {
    /// Chooses the executor that runs the systems, as bevy's
    /// `set_executor` does; the same as [`Schedule::set_executor_kind`]
    /// with the value's [`SystemExecutor::kind`].
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::{ExecutorKind, SingleThreadedExecutor};
    ///
    /// #[derive(Resource, Default)]
    /// struct Log(Vec<u8>);
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Log>();
    /// let mut schedule = Schedule::default();
    /// schedule.set_executor(SingleThreadedExecutor::new());
    /// schedule.add_systems((
    ///     |mut log: ResMut<Log>| log.0.push(1),
    ///     |mut log: ResMut<Log>| log.0.push(2),
    /// ));
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, [1, 2]);
    /// assert_eq!(schedule.executor(), ExecutorKind::SingleThreaded);
    /// ```
    pub fn set_executor(&mut self, executor: impl SystemExecutor) -> &mut Self {
        self.set_executor_kind(executor.kind())
    }
}
