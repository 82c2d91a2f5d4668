//! Components: the data attached to entities.
//!
//! A component type implements [`Component`] (usually through
//! `#[derive(Component)]`), which fixes where its values live:
//!
//! ```text
//! StorageType::Table      one column per component in the entity's table:
//!                         fast to iterate, a row move on insert/remove
//! StorageType::SparseSet  one ComponentSparseSet per component:
//!                         cheap to add and remove, slower to iterate
//! ```
//!
//! Every component known to a [`World`](crate::world::World) has a dense
//! [`ComponentId`] and a [`ComponentInfo`] in the [`Components`] registry.
//! Components may also be registered at run time from a
//! [`ComponentDescriptor`] without a Rust type behind them.
//!
//! # Layering
//!
//! This layer knows nothing of the layers above it (query, system,
//! schedule, observer, world) but one: a [`ComponentHook`] is called with a
//! [`DeferredWorld`](crate::world::DeferredWorld), because a hook's whole
//! purpose is to read and change the world around the component it runs
//! for. Only the hook's signature names it; the registry stores hooks as
//! plain function pointers and never calls them.

mod clone;
mod hooks;
mod mutability;
mod registry;
mod required;
mod snapshot;

pub use clone::{
    component_clone_ignore, component_clone_via_clone, ComponentCloneBehavior, ComponentCloneFn,
};
#[doc(hidden)]
pub use clone::{
    DefaultCloneBehaviorBase, DefaultCloneBehaviorSpecialization, DefaultCloneBehaviorViaClone,
};
pub use ecs_macros::Component;
pub use hooks::{ComponentHook, ComponentHooks, HookContext};
pub(crate) use mutability::is_mutable;
pub use mutability::{ComponentMutability, Immutable, Mutable};
pub use registry::{ComponentDescriptor, ComponentId, ComponentInfo, Components};
pub(crate) use required::closure as required_closure;
pub use required::{
    RequiredComponent, RequiredComponentConstructor, RequiredComponentsError,
    RequiredComponentsRegistrar,
};
#[doc(hidden)]
pub use snapshot::probe as __snapshot_probe;
pub use snapshot::SnapshotBehavior;
pub(crate) use snapshot::{HashValueFn, SnapshotFns};

/// A system parameter holding the [`ComponentId`] of `T`, registered when
/// the system is built.
///
/// ```
/// use ecs::component::{ComponentId, ComponentIdFor};
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Player;
///
/// fn player_id(id: ComponentIdFor<Player>) -> ComponentId {
///     id.get()
/// }
///
/// let mut world = World::new();
/// let id = world.run_system_once(player_id).unwrap();
/// assert_eq!(Some(id), world.component_id::<Player>());
/// ```
pub struct ComponentIdFor<'s, T: Component> {
    id: ComponentId,
    _marker: IdMarker<'s, T>,
}

/// What a [`ComponentIdFor`] is of, and borrowed for.
type IdMarker<'s, T> = std::marker::PhantomData<(&'s (), fn() -> T)>;

impl<T: Component> ComponentIdFor<'_, T> {
    pub(crate) fn new(id: ComponentId) -> Self {
        ComponentIdFor {
            id,
            _marker: std::marker::PhantomData,
        }
    }

    /// The [`ComponentId`] of `T`.
    #[inline]
    pub fn get(&self) -> ComponentId {
        self.id
    }
}

impl<T: Component> std::ops::Deref for ComponentIdFor<'_, T> {
    type Target = ComponentId;

    fn deref(&self) -> &ComponentId {
        &self.id
    }
}

impl<T: Component> From<ComponentIdFor<'_, T>> for ComponentId {
    #[inline]
    fn from(id: ComponentIdFor<'_, T>) -> ComponentId {
        id.id
    }
}

impl<T: Component> std::fmt::Debug for ComponentIdFor<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ComponentIdFor").field(&self.id).finish()
    }
}

/// Panics, naming `what` and `T`, when `T` keeps no change ticks
/// ([`Component::CHANGE_TICKS`]): `what` reads them.
#[inline]
#[track_caller]
pub(crate) fn assert_change_ticks<T: Component>(what: &str) {
    if !T::CHANGE_TICKS {
        no_change_ticks(what, std::any::type_name::<T>());
    }
}

#[cold]
#[track_caller]
fn no_change_ticks(what: &str, name: &str) -> ! {
    panic!(
        "{what} reads the change ticks of `{name}`, which keeps none \
         (`#[component(no_change_ticks)]`, `Component::CHANGE_TICKS = false`): remove \
         `no_change_ticks` from `{name}` to ask about its changes"
    )
}

/// Where the values of a component type are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StorageType {
    /// In a column of the entity's table (the default): the fastest to iterate.
    #[default]
    Table,
    /// In a per-component sparse set: the cheapest to add and remove.
    SparseSet,
}

/// A data type that can be attached to an entity.
///
/// Derive it with `#[derive(Component)]`; choose sparse-set storage with
/// `#[component(storage = "SparseSet")]`.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Position { x: f32, y: f32 }
///
/// #[derive(Component)]
/// #[component(storage = "SparseSet")]
/// struct Stunned;
///
/// let mut world = World::new();
/// let e = world.spawn((Position { x: 1.0, y: 2.0 }, Stunned)).id();
/// assert_eq!(world.get::<Position>(e).unwrap().y, 2.0);
/// ```
pub trait Component: Send + Sync + 'static {
    /// Where values of this component are stored.
    const STORAGE_TYPE: StorageType;

    /// Whether values may be changed in place: [`Mutable`] (what the
    /// derive picks) or [`Immutable`] (`#[component(immutable)]`, and every
    /// relationship: `#[relationship(..)]`).
    ///
    /// An immutable component has no typed mutable access (`get_mut`,
    /// `&mut T` in queries and the entry API need
    /// `T: Component<Mutability = Mutable>`), and untyped mutable access
    /// (`get_mut_by_id` and its kin) refuses it. Its values change only by
    /// replacement: inserting a new value, or
    /// [`World::modify_component`](crate::world::World::modify_component),
    /// which runs the `on_discard` hooks and observers before the change and
    /// the `on_insert` ones after, so hooks see every change.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// #[component(immutable)]
    /// struct Level(u32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Level(1)).id();
    /// world.modify_component(e, |level: &mut Level| level.0 += 1).unwrap();
    /// world.entity_mut(e).insert(Level(5));
    /// assert_eq!(world.get::<Level>(e), Some(&Level(5)));
    /// ```
    ///
    /// A hand-written impl names it:
    ///
    /// ```
    /// use ecs::component::{Component, Mutable, StorageType};
    ///
    /// struct Health(f32);
    ///
    /// impl Component for Health {
    ///     const STORAGE_TYPE: StorageType = StorageType::Table;
    ///     type Mutability = Mutable;
    /// }
    /// ```
    type Mutability: ComponentMutability;

    /// Whether the world keeps this component's change ticks for
    /// [`Added`](crate::query::Added), [`Changed`](crate::query::Changed)
    /// and [`Ref`](crate::change_detection::Ref) (the default).
    ///
    /// `#[component(no_change_ticks)]` sets it to `false` for components no
    /// system asks about changes of: moving an entity between tables
    /// (inserting or removing another component), and every other
    /// swap-remove (removing, despawning), then moves only the value, not
    /// its two ticks. `Added<T>` and `Changed<T>` filters, `Ref<T>` terms
    /// (each when its query is built) and `get_ref::<T>` calls panic for
    /// such a `T`, naming it. A [`Mut`](crate::change_detection::Mut)
    /// still writes a tick when written through, but as ticks do not follow
    /// their values, what `is_added`, `is_changed`, `last_changed` and
    /// `added` answer for such a component is unspecified (on `Mut`,
    /// `MutUntyped`, contiguous access and the storage's `get_ticks`).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// #[component(no_change_ticks)]
    /// struct Velocity(f32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Velocity(1.0)).id();
    /// for mut v in world.query::<&mut Velocity>().iter_mut(&mut world) {
    ///     v.0 *= 2.0;
    /// }
    /// assert_eq!(world.get::<Velocity>(e).unwrap().0, 2.0);
    /// const { assert!(!<Velocity as Component>::CHANGE_TICKS) };
    /// ```
    const CHANGE_TICKS: bool = true;

    /// The check [`World::check_integrity`](crate::world::World::check_integrity)
    /// runs for this component, if any: a relationship's derive names the
    /// check that both of its ends agree.
    #[doc(hidden)]
    fn integrity_check() -> Option<IntegrityCheck> {
        None
    }

    /// The other end of the relationship this component is one end of
    /// (the derive of `#[relationship]` / `#[relationship_target]` names
    /// it): a snapshot restores both ends or neither.
    #[doc(hidden)]
    fn snapshot_partner() -> Option<std::any::TypeId> {
        None
    }

    /// Registers the hooks declared on the type
    /// (`#[component(on_add = path, ...)]`).
    fn register_component_hooks(hooks: &mut ComponentHooks) {
        let _ = hooks;
    }

    /// Registers the components this one requires (`#[require(A, B =
    /// expr)]`): inserting this component inserts each of them the entity
    /// lacks. When several requirers name one component, a direct
    /// requirement's constructor wins; otherwise the first found
    /// depth-first, in declaration order. Requirements may also be added
    /// at run time with
    /// [`World::register_required_components`](crate::world::World::register_required_components).
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        let _ = required;
    }

    /// How the [`EntityCloner`](crate::entity::EntityCloner) clones this
    /// component (`#[component(clone_behavior = ..)]`; the derive picks
    /// [`ComponentCloneBehavior::clone`] for `Clone` types).
    #[inline]
    fn clone_behavior() -> ComponentCloneBehavior {
        ComponentCloneBehavior::Default
    }

    /// Whether every world copies this component in its snapshots
    /// (`#[component(snapshot)]`, or `#[component(snapshot = hash)]` to
    /// hash it into [`World::checksum`](crate::world::World::checksum) as
    /// well). The default leaves it to each world's
    /// [`World::register_snapshot`](crate::world::World::register_snapshot).
    /// A behavior built for another type (`SnapshotBehavior::copied::<U>()`
    /// in `T`'s impl) makes registering `T` panic.
    #[inline]
    fn snapshot_behavior() -> SnapshotBehavior {
        SnapshotBehavior::IGNORE
    }

    /// Rewrites the entity ids this component holds through `mapper`
    /// (the derive maps every field marked `#[entities]`, and a
    /// relationship's entity). Cloning calls it on each clone.
    #[inline]
    fn map_entities<E: crate::entity::EntityMapper>(this: &mut Self, mapper: &mut E) {
        let _ = (this, mapper);
    }
}

/// A check of one component's invariants over a whole world, run by
/// [`World::check_integrity`](crate::world::World::check_integrity).
#[doc(hidden)]
pub type IntegrityCheck = fn(&crate::world::World) -> Result<(), String>;
