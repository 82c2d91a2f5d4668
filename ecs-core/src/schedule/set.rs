//! [`SystemSet`]: named groups of systems that a schedule orders, nests
//! and guards with run conditions as one.
//!
//! ```text
//! #[derive(SystemSet)] enum Physics { Forces, Collisions }   a named set
//! fn gravity(..) {}        ─ IntoSystemSet ─▶ SystemTypeSet   every system made from `gravity`
//! (a, b).run_if(c)         ─ add_systems ──▶ AnonymousSet     the tuple's systems, for `c`
//! ```

use std::any::TypeId;
use std::marker::PhantomData;

use crate::define_label;
use crate::intern::Interned;
use crate::system::IntoSystem;

pub use ecs_macros::SystemSet;

define_label!(
    /// A group of systems: a schedule orders a set against systems and
    /// other sets (`.before(set)`, `configure_sets((A, B).chain())`), nests
    /// sets (`A.in_set(B)`), and skips every system of a set whose run
    /// conditions are false (`configure_sets(A.run_if(..))`).
    ///
    /// Derive it with `#[derive(SystemSet)]` on a type that is also
    /// `Clone`, `PartialEq`, `Eq`, `Hash` and `Debug`. Each system function
    /// is a set too ([`SystemTypeSet`]: every system made from it), which
    /// is how `.before(other_system)` works.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    /// enum Step { Input, Physics }
    ///
    /// #[derive(Resource, Default)]
    /// struct Log(Vec<&'static str>);
    ///
    /// fn read_keys(mut log: ResMut<Log>) { log.0.push("input"); }
    /// fn integrate(mut log: ResMut<Log>) { log.0.push("physics"); }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Log>();
    /// let mut schedule = Schedule::default();
    /// schedule.configure_sets((Step::Input, Step::Physics).chain());
    /// schedule.add_systems((integrate.in_set(Step::Physics), read_keys.in_set(Step::Input)));
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, ["input", "physics"]);
    /// ```
    #[diagnostic::on_unimplemented(
        note = "consider annotating `{Self}` with `#[derive(SystemSet)]`"
    )]
    SystemSet,
    extra_methods: {
        /// The [`System::type_id`](crate::system::System::type_id) of the
        /// systems this set stands for, if it is a [`SystemTypeSet`].
        fn system_type(&self) -> Option<TypeId> {
            None
        }

        /// Whether this is an [`AnonymousSet`].
        fn is_anonymous(&self) -> bool {
            false
        }
    },
    extra_methods_impl: {
        fn system_type(&self) -> Option<TypeId> {
            (**self).system_type()
        }

        fn is_anonymous(&self) -> bool {
            (**self).is_anonymous()
        }
    }
);

/// A [`SystemSet`] interned: `Copy`, and compared and hashed by address.
pub type InternedSystemSet = Interned<dyn SystemSet>;

/// The set of every system made from one system function (or system value)
/// `T`, which is how systems are named in `.before(f)` and `.after(f)`.
/// No other system or set can be put into it.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::IntoSystemSet;
///
/// fn spawn_wave() {}
/// fn despawn_dead() {}
///
/// let set = spawn_wave.into_system_set();
/// assert_eq!(set.intern(), spawn_wave.into_system_set().intern());
/// assert_ne!(set.intern(), despawn_dead.into_system_set().intern());
/// assert!(set.system_type().is_some());
/// ```
pub struct SystemTypeSet<T: 'static> {
    /// The systems' [`System::type_id`](crate::system::System::type_id).
    system: TypeId,
    marker: PhantomData<fn() -> T>,
}

impl<T: 'static> SystemTypeSet<T> {
    fn new(system: TypeId) -> Self {
        SystemTypeSet {
            system,
            marker: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for SystemTypeSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(std::any::type_name::<T>())
    }
}

impl<T> Clone for SystemTypeSet<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SystemTypeSet<T> {}

impl<T> PartialEq for SystemTypeSet<T> {
    fn eq(&self, other: &Self) -> bool {
        self.system == other.system
    }
}

impl<T> Eq for SystemTypeSet<T> {}

impl<T> std::hash::Hash for SystemTypeSet<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.system.hash(state);
    }
}

impl<T> SystemSet for SystemTypeSet<T> {
    fn system_type(&self) -> Option<TypeId> {
        Some(self.system)
    }

    fn dyn_clone(&self) -> Box<dyn SystemSet> {
        Box::new(*self)
    }
}

/// The set a schedule makes for a tuple of systems or sets given run
/// conditions together (`(a, b).run_if(c)`): `c` is evaluated once per run
/// for the whole tuple. Each one has its own number in the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnonymousSet(usize);

impl AnonymousSet {
    pub(crate) fn new(id: usize) -> Self {
        AnonymousSet(id)
    }
}

impl SystemSet for AnonymousSet {
    fn is_anonymous(&self) -> bool {
        true
    }

    fn dyn_clone(&self) -> Box<dyn SystemSet> {
        Box::new(*self)
    }
}

/// Something `.before`, `.after`, `.ambiguous_with` and `.in_set` can
/// name: a [`SystemSet`], or a system function, which stands for every
/// system made from it ([`SystemTypeSet`]).
pub trait IntoSystemSet<Marker>: Sized {
    /// The set.
    type Set: SystemSet;

    /// Makes the set.
    fn into_system_set(self) -> Self::Set;
}

impl<S: SystemSet> IntoSystemSet<()> for S {
    type Set = S;

    fn into_system_set(self) -> S {
        self
    }
}

/// Marks the [`IntoSystemSet`] impl of systems.
#[doc(hidden)]
pub struct IsSystemTypeSet;

impl<F, Marker> IntoSystemSet<(IsSystemTypeSet, Marker)> for F
where
    F: IntoSystem<(), (), Marker> + 'static,
{
    type Set = SystemTypeSet<F>;

    fn into_system_set(self) -> SystemTypeSet<F> {
        // The built system's own `type_id` is what the schedule matches, so
        // a function and a system value made from it name the same set.
        let system = IntoSystem::into_system(self);
        SystemTypeSet::new(crate::system::System::type_id(&system))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    #[ecs(crate = crate)]
    enum Phase {
        Early,
        Late,
    }

    fn a() {}
    fn b() {}

    #[test]
    fn sets_intern_by_value_and_type() {
        assert_eq!(Phase::Early.intern(), Phase::Early.intern());
        assert_ne!(Phase::Early.intern(), Phase::Late.intern());
        assert_ne!(AnonymousSet::new(0).intern(), AnonymousSet::new(1).intern());
        assert!(AnonymousSet::new(0).intern().is_anonymous());
        assert!(!Phase::Early.intern().is_anonymous());
        assert_eq!(Phase::Early.intern().system_type(), None);
    }

    #[test]
    fn a_function_is_the_set_of_its_systems() {
        let set_a = a.into_system_set().intern();
        assert_eq!(set_a, a.into_system_set().intern());
        assert_ne!(set_a, b.into_system_set().intern());
        let system = IntoSystem::into_system(a);
        assert_eq!(
            set_a.system_type(),
            Some(crate::system::System::type_id(&system))
        );
        assert!(format!("{set_a:?}").ends_with("::a"), "{set_a:?}");
    }
}
