//! What `add_systems` and `configure_sets` take: systems or sets, alone or
//! in (nested) tuples, with their sets, ordering and run conditions.

use super::condition::{BoxedCondition, SystemCondition};
use super::set::{InternedSystemSet, IntoSystemSet, SystemSet};
use crate::system::{IntoSystem, ScheduleSystem};

/// A kind of node a schedule orders: systems ([`ScheduleSystem`]) and
/// system sets ([`InternedSystemSet`]).
pub trait Schedulable: Sized {
    /// What configures one node.
    type Metadata;
    /// What configures a group of nodes.
    type GroupMetadata;

    /// A configuration of this node alone, with nothing set.
    fn into_config(self) -> ScheduleConfig<Self>;
}

impl Schedulable for ScheduleSystem {
    type Metadata = GraphInfo;
    type GroupMetadata = Chain;

    fn into_config(self) -> ScheduleConfig<Self> {
        ScheduleConfig {
            node: self,
            metadata: GraphInfo::default(),
            conditions: Vec::new(),
        }
    }
}

impl Schedulable for InternedSystemSet {
    type Metadata = GraphInfo;
    type GroupMetadata = Chain;

    #[track_caller]
    fn into_config(self) -> ScheduleConfig<Self> {
        assert!(
            self.system_type().is_none(),
            "`{self:?}` is the set of a system function's systems, which cannot be configured: configure a set of your own and put the system in it"
        );
        ScheduleConfig {
            node: self,
            metadata: GraphInfo::default(),
            conditions: Vec::new(),
        }
    }
}

/// Before or after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DependencyKind {
    /// The node runs before the set.
    Before,
    /// The node runs after the set.
    After,
}

/// An ordering of a node against a set (or a system function's systems).
#[derive(Debug, Clone)]
pub struct Dependency {
    /// Before or after.
    pub kind: DependencyKind,
    /// What the node is ordered against.
    pub set: InternedSystemSet,
    /// Whether the commands of the earlier side may still be pending when
    /// the later side runs (`before_ignore_deferred`).
    pub ignore_deferred: bool,
}

/// Which conflicts of a node are accepted without an ordering, for
/// ambiguity reports ([`ScheduleGraph::conflicting_systems`](super::ScheduleGraph::conflicting_systems)).
#[derive(Debug, Clone, Default)]
pub enum Ambiguity {
    /// Every conflict is reported.
    #[default]
    Check,
    /// Conflicts with the systems of these sets are accepted.
    IgnoreWithSet(Vec<InternedSystemSet>),
    /// Every conflict is accepted.
    IgnoreAll,
}

/// Where a node sits: the sets it is in, what it is ordered against, and
/// which conflicts are accepted.
#[derive(Debug, Clone, Default)]
pub struct GraphInfo {
    /// The sets the node is in.
    pub hierarchy: Vec<InternedSystemSet>,
    /// Its orderings.
    pub dependencies: Vec<Dependency>,
    /// Its accepted conflicts.
    pub ambiguous_with: Ambiguity,
}

/// Whether the members of a group run one after another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Chain {
    /// The members are ordered only by their own constraints.
    #[default]
    Unchained,
    /// Each member runs after the previous one, with the previous one's
    /// commands applied.
    Chained,
    /// Each member runs after the previous one, whose commands may still
    /// be pending (`chain_ignore_deferred`).
    ChainedIgnoreDeferred,
}

/// One node (a system or a set) with its sets, ordering and run
/// conditions.
pub struct ScheduleConfig<T: Schedulable> {
    pub(crate) node: T,
    pub(crate) metadata: T::Metadata,
    pub(crate) conditions: Vec<BoxedCondition>,
}

/// Nodes to add to a schedule, with their sets, ordering and conditions.
#[must_use = "configs do nothing until added to a schedule"]
pub enum ScheduleConfigs<T: Schedulable> {
    /// One node.
    ScheduleConfig(ScheduleConfig<T>),
    /// A group (a tuple).
    Configs {
        /// The members.
        configs: Vec<ScheduleConfigs<T>>,
        /// Conditions evaluated once for the whole group (`run_if` on a
        /// tuple): the schedule puts the members in an
        /// [`AnonymousSet`](super::AnonymousSet) guarded by them.
        collective_conditions: Vec<BoxedCondition>,
        /// Whether each member runs after the previous one.
        metadata: T::GroupMetadata,
    },
}

/// Boxes a run condition.
fn new_condition<M>(condition: impl SystemCondition<M>) -> BoxedCondition {
    Box::new(IntoSystem::into_system(condition))
}

impl<T: Schedulable<Metadata = GraphInfo, GroupMetadata = Chain>> ScheduleConfigs<T> {
    fn for_each_node(&mut self, f: &mut impl FnMut(&mut GraphInfo)) {
        match self {
            ScheduleConfigs::ScheduleConfig(config) => f(&mut config.metadata),
            ScheduleConfigs::Configs { configs, .. } => {
                configs.iter_mut().for_each(|c| c.for_each_node(f))
            }
        }
    }

    #[track_caller]
    fn in_set_inner(&mut self, set: InternedSystemSet) {
        assert!(
            set.system_type().is_none(),
            "cannot put systems or sets into `{set:?}`, the set of a system function's systems: use a set of your own"
        );
        self.for_each_node(&mut |info| info.hierarchy.push(set));
    }

    fn order_inner(&mut self, kind: DependencyKind, set: InternedSystemSet, ignore: bool) {
        self.for_each_node(&mut |info| {
            info.dependencies.push(Dependency {
                kind,
                set,
                ignore_deferred: ignore,
            })
        });
    }

    fn distributive_run_if_inner<M>(&mut self, condition: impl SystemCondition<M> + Clone) {
        match self {
            ScheduleConfigs::ScheduleConfig(config) => {
                config.conditions.push(new_condition(condition))
            }
            ScheduleConfigs::Configs { configs, .. } => configs
                .iter_mut()
                .for_each(|c| c.distributive_run_if_inner(condition.clone())),
        }
    }

    fn run_if_dyn(&mut self, condition: BoxedCondition) {
        match self {
            ScheduleConfigs::ScheduleConfig(config) => config.conditions.push(condition),
            ScheduleConfigs::Configs {
                collective_conditions,
                ..
            } => collective_conditions.push(condition),
        }
    }

    fn chain_inner(self, chain: Chain) -> Self {
        match self {
            ScheduleConfigs::Configs {
                configs,
                collective_conditions,
                ..
            } => ScheduleConfigs::Configs {
                configs,
                collective_conditions,
                metadata: chain,
            },
            one => one,
        }
    }
}

/// Conversion into [`ScheduleConfigs`] of node kind `T`: for
/// `T = ScheduleSystem`, systems with no input and no output, tuples of
/// them (up to 16, nestable) and configs already built; for
/// `T = InternedSystemSet`, system sets and tuples of them. Gives the
/// methods that place, order and guard them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be added to a schedule: it is not a system taking no input and returning `()`, a system set, or a tuple of them",
    label = "not a schedulable system or set",
    note = "a schedule runs systems that take no input and return `()`: every parameter is a `SystemParam` (`Query`, `Res`, `ResMut`, `Local`, `Commands`, `&World`, ...), or the system is `fn(&mut World)`; a system taking `In<T>`, `InRef<T>` or `InMut<T>` runs with `World::run_system_once_with`"
)]
pub trait IntoScheduleConfigs<T: Schedulable<Metadata = GraphInfo, GroupMetadata = Chain>, Marker>:
    Sized
{
    /// The configs.
    fn into_configs(self) -> ScheduleConfigs<T>;

    /// Puts these nodes in `set` (and so in every set `set` is in).
    ///
    /// # Panics
    /// If `set` is a system function's set ([`SystemTypeSet`](super::SystemTypeSet)).
    #[track_caller]
    fn in_set(self, set: impl SystemSet) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.in_set_inner(set.intern());
        configs
    }

    /// Runs these nodes before `set`: before every system in it, or every
    /// system made from the function, with their commands applied first.
    fn before<M>(self, set: impl IntoSystemSet<M>) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.order_inner(
            DependencyKind::Before,
            set.into_system_set().intern(),
            false,
        );
        configs
    }

    /// Runs these nodes after `set`, with its systems' commands applied
    /// first.
    fn after<M>(self, set: impl IntoSystemSet<M>) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.order_inner(DependencyKind::After, set.into_system_set().intern(), false);
        configs
    }

    /// Runs these nodes before `set`, whose systems may run before these
    /// nodes' commands are applied.
    fn before_ignore_deferred<M>(self, set: impl IntoSystemSet<M>) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.order_inner(DependencyKind::Before, set.into_system_set().intern(), true);
        configs
    }

    /// Runs these nodes after `set`, possibly before its systems' commands
    /// are applied.
    fn after_ignore_deferred<M>(self, set: impl IntoSystemSet<M>) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.order_inner(DependencyKind::After, set.into_system_set().intern(), true);
        configs
    }

    /// Guards each node on its own with a copy of `condition`: each copy
    /// is evaluated right before its node would run, with its own state.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Paused(bool);
    /// #[derive(Resource, Default)]
    /// struct Ran(u32);
    ///
    /// fn not_paused(paused: Res<Paused>) -> bool { !paused.0 }
    /// fn a(mut ran: ResMut<Ran>) { ran.0 += 1; }
    /// fn b(mut ran: ResMut<Ran>) { ran.0 += 10; }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Paused>();
    /// world.init_resource::<Ran>();
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems((a, b).distributive_run_if(not_paused));
    /// schedule.run(&mut world);
    /// world.resource_mut::<Paused>().0 = true;
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Ran>().0, 11);
    /// ```
    fn distributive_run_if<M>(
        self,
        condition: impl SystemCondition<M> + Clone,
    ) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.distributive_run_if_inner(condition);
        configs
    }

    /// Runs these nodes only when `condition` returns `true`. On a tuple,
    /// the condition is evaluated once per schedule run, right before the
    /// first of its systems would run, and guards them all.
    ///
    /// A condition is a read-only system returning `bool`; its access
    /// counts as the guarded systems' own when the schedule decides which
    /// systems may run at once. A skipped system does not run: its last
    /// run tick stays where it was, so when it next runs it sees every
    /// change since it last ran, and it queues no commands.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Score(u32);
    ///
    /// fn score(mut s: ResMut<Score>) { s.0 += 1; }
    /// fn scoring(score: Option<Res<Score>>) -> bool { score.is_some() }
    ///
    /// let mut world = World::new();
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems(score.run_if(scoring));
    /// schedule.run(&mut world); // no `Score` yet: skipped
    /// world.init_resource::<Score>();
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Score>().0, 1);
    /// ```
    fn run_if<M>(self, condition: impl SystemCondition<M>) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.run_if_dyn(new_condition(condition));
        configs
    }

    /// Accepts conflicts between these nodes and `set` without an
    /// ordering, for ambiguity reports.
    fn ambiguous_with<M>(self, set: impl IntoSystemSet<M>) -> ScheduleConfigs<T> {
        let set = set.into_system_set().intern();
        let mut configs = self.into_configs();
        configs.for_each_node(&mut |info| match &mut info.ambiguous_with {
            detection @ Ambiguity::Check => *detection = Ambiguity::IgnoreWithSet(vec![set]),
            Ambiguity::IgnoreWithSet(sets) => sets.push(set),
            Ambiguity::IgnoreAll => {}
        });
        configs
    }

    /// Accepts every conflict of these nodes without an ordering, for
    /// ambiguity reports.
    fn ambiguous_with_all(self) -> ScheduleConfigs<T> {
        let mut configs = self.into_configs();
        configs.for_each_node(&mut |info| info.ambiguous_with = Ambiguity::IgnoreAll);
        configs
    }

    /// Runs the members one after another, in the order written, each with
    /// the previous one's commands applied.
    fn chain(self) -> ScheduleConfigs<T> {
        self.into_configs().chain_inner(Chain::Chained)
    }

    /// Runs the members one after another, in the order written; a
    /// member's commands may still be pending when the next one runs.
    fn chain_ignore_deferred(self) -> ScheduleConfigs<T> {
        self.into_configs()
            .chain_inner(Chain::ChainedIgnoreDeferred)
    }
}

impl<T: Schedulable<Metadata = GraphInfo, GroupMetadata = Chain>> IntoScheduleConfigs<T, ()>
    for ScheduleConfigs<T>
{
    fn into_configs(self) -> Self {
        self
    }
}

impl<F, Marker> IntoScheduleConfigs<ScheduleSystem, Marker> for F
where
    F: IntoSystem<(), (), Marker>,
{
    fn into_configs(self) -> ScheduleConfigs<ScheduleSystem> {
        let system: ScheduleSystem = Box::new(IntoSystem::into_system(self));
        ScheduleConfigs::ScheduleConfig(system.into_config())
    }
}

impl IntoScheduleConfigs<ScheduleSystem, ()> for ScheduleSystem {
    fn into_configs(self) -> ScheduleConfigs<ScheduleSystem> {
        ScheduleConfigs::ScheduleConfig(self.into_config())
    }
}

impl<S: SystemSet> IntoScheduleConfigs<InternedSystemSet, ()> for S {
    #[track_caller]
    fn into_configs(self) -> ScheduleConfigs<InternedSystemSet> {
        ScheduleConfigs::ScheduleConfig(self.intern().into_config())
    }
}

/// Marks the `IntoScheduleConfigs` impls of tuples.
#[doc(hidden)]
pub struct ScheduleConfigTupleMarker;

macro_rules! tuple_configs {
    ($(($name:ident, $m:ident)),*) => {
        #[allow(non_snake_case)]
        impl<T, $($name, $m),*> IntoScheduleConfigs<T, (ScheduleConfigTupleMarker, $($m,)*)> for ($($name,)*)
        where
            T: Schedulable<Metadata = GraphInfo, GroupMetadata = Chain>,
            $($name: IntoScheduleConfigs<T, $m>),*
        {
            fn into_configs(self) -> ScheduleConfigs<T> {
                let ($($name,)*) = self;
                ScheduleConfigs::Configs {
                    configs: vec![$($name.into_configs()),*],
                    collective_conditions: Vec::new(),
                    metadata: Chain::Unchained,
                }
            }
        }
    };
}

crate::utils::all_tuples_nonempty!(tuple_configs; (S0, M0), (S1, M1), (S2, M2), (S3, M3), (S4, M4), (S5, M5), (S6, M6), (S7, M7), (S8, M8), (S9, M9), (S10, M10), (S11, M11), (S12, M12), (S13, M13), (S14, M14), (S15, M15));
