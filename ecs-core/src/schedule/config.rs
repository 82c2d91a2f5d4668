use std::any::TypeId;

use crate::system::{BoxedSystem, IntoSystem};

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

impl<F: IntoSystem<(), Marker> + 'static, Marker> IntoSystemKey<Marker> for F {
    fn into_system_key(self) -> SystemKey {
        SystemKey(TypeId::of::<F>(), std::any::type_name::<F>())
    }
}

/// One system with its ordering constraints.
pub struct SystemConfig {
    pub(crate) system: BoxedSystem,
    pub(crate) before: Vec<SystemKey>,
    pub(crate) after: Vec<SystemKey>,
}

/// Systems to add to a schedule, with their ordering.
pub enum SystemConfigs {
    /// One system.
    One(SystemConfig),
    /// A group, optionally chained (each runs after the previous one).
    Many {
        /// The members.
        configs: Vec<SystemConfigs>,
        /// Whether each member runs after the previous one.
        chained: bool,
    },
}

impl SystemConfigs {
    fn for_each_system(&mut self, f: &mut impl FnMut(&mut SystemConfig)) {
        match self {
            SystemConfigs::One(config) => f(config),
            SystemConfigs::Many { configs, .. } => {
                configs.iter_mut().for_each(|c| c.for_each_system(f))
            }
        }
    }
}

/// Conversion into [`SystemConfigs`]: systems, tuples of them (up to 16,
/// nestable), and configs already built. Gives `.before`, `.after` and
/// `.chain()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be added to a schedule: it is not a system or a tuple of systems",
    label = "not a system",
    note = "a system is a function whose parameters are all `SystemParam`s (`Query`, `Res`, `ResMut`, `Local`, `Commands`, `&World`, ...), or `fn(&mut World)`"
)]
pub trait IntoScheduleConfigs<Marker>: Sized {
    /// The configs.
    fn into_configs(self) -> SystemConfigs;

    /// Runs these systems before every system made from `other`.
    fn before<M>(self, other: impl IntoSystemKey<M>) -> SystemConfigs {
        let key = other.into_system_key();
        let mut configs = self.into_configs();
        configs.for_each_system(&mut |c| c.before.push(key));
        configs
    }

    /// Runs these systems after every system made from `other`.
    fn after<M>(self, other: impl IntoSystemKey<M>) -> SystemConfigs {
        let key = other.into_system_key();
        let mut configs = self.into_configs();
        configs.for_each_system(&mut |c| c.after.push(key));
        configs
    }

    /// Runs the members one after another, in the order written.
    fn chain(self) -> SystemConfigs {
        match self.into_configs() {
            SystemConfigs::Many { configs, .. } => SystemConfigs::Many {
                configs,
                chained: true,
            },
            one => one,
        }
    }
}

impl IntoScheduleConfigs<()> for SystemConfigs {
    fn into_configs(self) -> SystemConfigs {
        self
    }
}

/// Marks the `IntoScheduleConfigs` impl of single systems.
#[doc(hidden)]
pub struct IsSystem;

impl<F, Marker> IntoScheduleConfigs<(IsSystem, Marker)> for F
where
    F: IntoSystem<(), Marker>,
{
    fn into_configs(self) -> SystemConfigs {
        SystemConfigs::One(SystemConfig {
            system: Box::new(IntoSystem::into_system(self)),
            before: Vec::new(),
            after: Vec::new(),
        })
    }
}

/// Marks the `IntoScheduleConfigs` impls of tuples.
#[doc(hidden)]
pub struct IsTuple;

macro_rules! tuple_configs {
    ($(($name:ident, $m:ident)),*) => {
        #[allow(non_snake_case)]
        impl<$($name, $m),*> IntoScheduleConfigs<(IsTuple, $($m,)*)> for ($($name,)*)
        where
            $($name: IntoScheduleConfigs<$m>),*
        {
            fn into_configs(self) -> SystemConfigs {
                let ($($name,)*) = self;
                SystemConfigs::Many {
                    configs: vec![$($name.into_configs()),*],
                    chained: false,
                }
            }
        }
    };
}

crate::utils::all_tuples_nonempty!(tuple_configs; (S0, M0), (S1, M1), (S2, M2), (S3, M3), (S4, M4), (S5, M5), (S6, M6), (S7, M7), (S8, M8), (S9, M9), (S10, M10), (S11, M11), (S12, M12), (S13, M13), (S14, M14), (S15, M15));
