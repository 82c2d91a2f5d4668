use std::any::TypeId;

use crate::system::{IntoSystem, ScheduleSystem, System};

/// The identity of a system for ordering: its function's type (and name,
/// for messages).
#[derive(Debug, Clone, Copy)]
pub struct SystemKey(pub(crate) TypeId, pub(crate) &'static str);

impl PartialEq for SystemKey {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for SystemKey {}

impl std::hash::Hash for SystemKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// Something `.before` / `.after` can name: a system function.
pub trait IntoSystemKey<Marker> {
    /// The key of every system made from this function.
    fn into_system_key(self) -> SystemKey;
}

impl<F: IntoSystem<(), (), Marker>, Marker> IntoSystemKey<Marker> for F {
    fn into_system_key(self) -> SystemKey {
        // The system's own `type_id` is what the schedule records, so a
        // function and a system built from it name the same node.
        let system = IntoSystem::into_system(self);
        SystemKey(system.type_id(), std::any::type_name::<F>())
    }
}

/// A kind of node a schedule orders: systems ([`ScheduleSystem`]) now;
/// system sets will be the second kind.
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
        }
    }
}

/// Where a node sits in the order: the systems it runs before and after.
#[derive(Debug, Clone, Default)]
pub struct GraphInfo {
    pub(crate) before: Vec<SystemKey>,
    pub(crate) after: Vec<SystemKey>,
}

/// Whether the members of a group run one after another.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Chain {
    /// The members are ordered only by their own constraints.
    #[default]
    Unchained,
    /// Each member runs after the previous one.
    Chained,
}

/// One node (a system) with its ordering constraints.
pub struct ScheduleConfig<T: Schedulable> {
    pub(crate) node: T,
    pub(crate) metadata: T::Metadata,
}

/// Nodes to add to a schedule, with their ordering.
#[must_use = "configs do nothing until added to a schedule"]
pub enum ScheduleConfigs<T: Schedulable> {
    /// One node.
    ScheduleConfig(ScheduleConfig<T>),
    /// A group (a tuple), optionally chained.
    Configs {
        /// The members.
        configs: Vec<ScheduleConfigs<T>>,
        /// Whether each member runs after the previous one.
        metadata: T::GroupMetadata,
    },
}

impl<T: Schedulable<Metadata = GraphInfo>> ScheduleConfigs<T> {
    fn for_each_node(&mut self, f: &mut impl FnMut(&mut GraphInfo)) {
        match self {
            ScheduleConfigs::ScheduleConfig(config) => f(&mut config.metadata),
            ScheduleConfigs::Configs { configs, .. } => {
                configs.iter_mut().for_each(|c| c.for_each_node(f))
            }
        }
    }
}

/// Conversion into [`ScheduleConfigs`] of node kind `T`: for
/// `T = ScheduleSystem`, systems with no input and no output, tuples of
/// them (up to 16, nestable), and configs already built. Gives `.before`,
/// `.after` and `.chain()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be added to a schedule: it is not a system taking no input and returning `()`, or a tuple of them",
    label = "not a schedulable system",
    note = "a schedule runs systems that take no input and return `()`: every parameter is a `SystemParam` (`Query`, `Res`, `ResMut`, `Local`, `Commands`, `&World`, ...), or the system is `fn(&mut World)`; a system taking `In<T>`, `InRef<T>` or `InMut<T>` runs with `World::run_system_once_with`"
)]
pub trait IntoScheduleConfigs<T: Schedulable<Metadata = GraphInfo, GroupMetadata = Chain>, Marker>:
    Sized
{
    /// The configs.
    fn into_configs(self) -> ScheduleConfigs<T>;

    /// Runs these nodes before every system made from `other`.
    fn before<M>(self, other: impl IntoSystemKey<M>) -> ScheduleConfigs<T> {
        let key = other.into_system_key();
        let mut configs = self.into_configs();
        configs.for_each_node(&mut |c| c.before.push(key));
        configs
    }

    /// Runs these nodes after every system made from `other`.
    fn after<M>(self, other: impl IntoSystemKey<M>) -> ScheduleConfigs<T> {
        let key = other.into_system_key();
        let mut configs = self.into_configs();
        configs.for_each_node(&mut |c| c.after.push(key));
        configs
    }

    /// Runs the members one after another, in the order written.
    fn chain(self) -> ScheduleConfigs<T> {
        match self.into_configs() {
            ScheduleConfigs::Configs { configs, .. } => ScheduleConfigs::Configs {
                configs,
                metadata: Chain::Chained,
            },
            one => one,
        }
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
                    metadata: Chain::Unchained,
                }
            }
        }
    };
}

crate::utils::all_tuples_nonempty!(tuple_configs; (S0, M0), (S1, M1), (S2, M2), (S3, M3), (S4, M4), (S5, M5), (S6, M6), (S7, M7), (S8, M8), (S9, M9), (S10, M10), (S11, M11), (S12, M12), (S13, M13), (S14, M14), (S15, M15));
