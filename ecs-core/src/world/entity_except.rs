//! [`EntityRefExcept`] and [`EntityMutExcept`]: whole-entity handles that
//! leave out the components of a bundle, so that a query may hold one
//! beside typed terms of those components
//! (`Query<(EntityMutExcept<Transform>, &mut Transform)>`).
//!
//! Each wraps a filtered handle whose access is "every component except
//! `B`'s" (interned once per state), and checks `B` again by type on each
//! typed lookup, so a component of `B` registered after the state was
//! built is refused too.

use std::{
    any::TypeId,
    cmp::Ordering,
    hash::{Hash, Hasher},
    marker::PhantomData,
};

use super::{FilteredEntityMut, FilteredEntityRef};
use crate::{
    bundle::Bundle,
    change_detection::{ComponentTicks, Mut, MutUntyped, Ref, Tick},
    component::{Component, ComponentId, Components, Mutable},
    entity::Entity,
    ptr::Ptr,
};

/// Whether `id` is one of `B`'s components (registered ones only).
fn bundle_contains<B: Bundle>(components: &Components, id: ComponentId) -> bool {
    let mut found = false;
    B::get_component_ids(components, &mut |bundle_id| found |= bundle_id == Some(id));
    found
}

/// Shared access to every component of one entity except those of the
/// bundle `B`: query data that reads the rest of an entity beside typed
/// terms that write `B`'s components.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::world::EntityRefExcept;
///
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Component)]
/// struct Armor(u32);
///
/// let mut world = World::new();
/// let e = world.spawn((Health(10), Armor(3))).id();
/// let mut query = world.query::<(EntityRefExcept<Health>, &mut Health)>();
/// for (rest, mut health) in query.iter_mut(&mut world) {
///     assert!(rest.get::<Health>().is_none(), "left out");
///     health.0 += rest.get::<Armor>().map_or(0, |a| a.0);
/// }
/// assert_eq!(world.get::<Health>(e).unwrap().0, 13);
/// ```
pub struct EntityRefExcept<'w, 's, B: Bundle> {
    inner: FilteredEntityRef<'w, 's>,
    marker: PhantomData<fn() -> B>,
}

impl<'w, 's, B: Bundle> EntityRefExcept<'w, 's, B> {
    pub(crate) fn new(inner: FilteredEntityRef<'w, 's>) -> Self {
        EntityRefExcept {
            inner,
            marker: PhantomData,
        }
    }

    fn leaves_out(&self, id: ComponentId) -> bool {
        bundle_contains::<B>(self.inner.components(), id)
    }

    /// The filtered handle with the same access: every component but
    /// `B`'s.
    #[inline]
    pub fn into_filtered(self) -> FilteredEntityRef<'w, 's> {
        self.inner
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.inner.id()
    }

    /// The entity's component `C`, unless it is one of `B`'s or the entity
    /// lacks it.
    #[inline]
    pub fn get<C: Component>(&self) -> Option<&'w C> {
        let id = self.inner.components().component_id::<C>()?;
        if self.leaves_out(id) {
            return None;
        }
        self.inner.get::<C>()
    }

    /// [`EntityRefExcept::get`] with the value's change ticks.
    #[inline]
    pub fn get_ref<C: Component>(&self) -> Option<Ref<'w, C>> {
        let id = self.inner.components().component_id::<C>()?;
        if self.leaves_out(id) {
            return None;
        }
        self.inner.get_ref::<C>()
    }

    /// The component of id `id`, unless it is one of `B`'s or the entity
    /// lacks it.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Option<Ptr<'w>> {
        if self.leaves_out(id) {
            return None;
        }
        self.inner.get_by_id(id)
    }

    /// The tick the entity was spawned at.
    #[inline]
    pub fn spawn_tick(&self) -> Tick {
        self.inner.spawn_tick()
    }

    /// Whether the entity has component `T` (one of `B`'s included).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.inner.contains::<T>()
    }

    /// Whether the entity has the component of id `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.inner.contains_id(id)
    }

    /// Whether the entity has the component of type `type_id`.
    #[inline]
    pub fn contains_type_id(&self, type_id: TypeId) -> bool {
        self.inner.contains_type_id(type_id)
    }

    /// The change ticks of `T`, unless it is one of `B`'s or absent.
    #[inline]
    pub fn get_change_ticks<T: Component>(&self) -> Option<ComponentTicks> {
        let id = self.inner.components().component_id::<T>()?;
        self.get_change_ticks_by_id(id)
    }

    /// The change ticks of the component of id `id`, unless it is one of
    /// `B`'s or absent.
    #[inline]
    pub fn get_change_ticks_by_id(&self, id: ComponentId) -> Option<ComponentTicks> {
        if self.leaves_out(id) {
            return None;
        }
        self.inner.get_change_ticks_by_id(id)
    }
}

impl<B: Bundle> Clone for EntityRefExcept<'_, '_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: Bundle> Copy for EntityRefExcept<'_, '_, B> {}

impl<'w, 's, B: Bundle> From<EntityRefExcept<'w, 's, B>> for FilteredEntityRef<'w, 's> {
    fn from(value: EntityRefExcept<'w, 's, B>) -> Self {
        value.inner
    }
}

impl<'w, 's, B: Bundle> From<&EntityRefExcept<'w, 's, B>> for FilteredEntityRef<'w, 's> {
    fn from(value: &EntityRefExcept<'w, 's, B>) -> Self {
        value.inner
    }
}

/// Mutable access to every component of one entity except those of the
/// bundle `B`: query data that writes the rest of an entity beside typed
/// terms of `B`'s components.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::world::EntityMutExcept;
///
/// #[derive(Component)]
/// struct Speed(f32);
/// #[derive(Component)]
/// struct Position(f32);
///
/// let mut world = World::new();
/// let e = world.spawn((Speed(2.0), Position(1.0))).id();
/// let mut query = world.query::<(EntityMutExcept<Speed>, &Speed)>();
/// for (mut rest, speed) in query.iter_mut(&mut world) {
///     rest.get_mut::<Position>().unwrap().0 += speed.0;
///     assert!(rest.get_mut::<Speed>().is_none(), "left out");
/// }
/// assert_eq!(world.get::<Position>(e).unwrap().0, 3.0);
/// ```
pub struct EntityMutExcept<'w, 's, B: Bundle> {
    inner: FilteredEntityMut<'w, 's>,
    marker: PhantomData<fn() -> B>,
}

impl<'w, 's, B: Bundle> EntityMutExcept<'w, 's, B> {
    pub(crate) fn new(inner: FilteredEntityMut<'w, 's>) -> Self {
        EntityMutExcept {
            inner,
            marker: PhantomData,
        }
    }

    fn leaves_out(&self, id: ComponentId) -> bool {
        bundle_contains::<B>(self.inner.components(), id)
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.inner.id()
    }

    /// A shorter-lived handle to the same entity.
    #[inline]
    pub fn reborrow(&mut self) -> EntityMutExcept<'_, 's, B> {
        EntityMutExcept::new(self.inner.reborrow())
    }

    /// A read-only handle for the whole lifetime.
    #[inline]
    pub fn into_readonly(self) -> EntityRefExcept<'w, 's, B> {
        EntityRefExcept::new(self.inner.into_readonly())
    }

    /// A read-only handle borrowing this one.
    #[inline]
    pub fn as_readonly(&self) -> EntityRefExcept<'_, 's, B> {
        EntityRefExcept::new(self.inner.as_readonly())
    }

    /// The filtered handle with the same access: every component but
    /// `B`'s.
    #[inline]
    pub fn into_filtered(self) -> FilteredEntityMut<'w, 's> {
        self.inner
    }

    /// The entity's component `C`, unless it is one of `B`'s or absent.
    #[inline]
    pub fn get<C: Component>(&self) -> Option<&'_ C> {
        self.as_readonly().get::<C>()
    }

    /// [`EntityMutExcept::get`] with the value's change ticks.
    #[inline]
    pub fn get_ref<C: Component>(&self) -> Option<Ref<'_, C>> {
        self.as_readonly().get_ref::<C>()
    }

    /// The entity's component `C` mutably, unless it is one of `B`'s or
    /// absent.
    #[inline]
    pub fn get_mut<C: Component<Mutability = Mutable>>(&mut self) -> Option<Mut<'_, C>> {
        let id = self.inner.components().component_id::<C>()?;
        if self.leaves_out(id) {
            return None;
        }
        self.inner.get_mut::<C>()
    }

    /// The tick the entity was spawned at.
    #[inline]
    pub fn spawn_tick(&self) -> Tick {
        self.inner.spawn_tick()
    }

    /// Whether the entity has component `T` (one of `B`'s included).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.inner.contains::<T>()
    }

    /// Whether the entity has the component of id `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.inner.contains_id(id)
    }

    /// Whether the entity has the component of type `type_id`.
    #[inline]
    pub fn contains_type_id(&self, type_id: TypeId) -> bool {
        self.inner.contains_type_id(type_id)
    }

    /// The component of id `id`, unless it is one of `B`'s or absent.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Option<Ptr<'_>> {
        self.as_readonly().get_by_id(id)
    }

    /// The component of id `id` mutably, unless it is one of `B`'s, absent
    /// or immutable.
    #[inline]
    pub fn get_mut_by_id(&mut self, id: ComponentId) -> Option<MutUntyped<'_>> {
        if self.leaves_out(id) {
            return None;
        }
        self.inner.get_mut_by_id(id)
    }
}

impl<'w, 's, B: Bundle> From<EntityMutExcept<'w, 's, B>> for FilteredEntityMut<'w, 's> {
    fn from(value: EntityMutExcept<'w, 's, B>) -> Self {
        value.inner
    }
}

impl<'w, 's, B: Bundle> From<&'w mut EntityMutExcept<'_, 's, B>> for FilteredEntityMut<'w, 's> {
    fn from(value: &'w mut EntityMutExcept<'_, 's, B>) -> Self {
        value.inner.reborrow()
    }
}

impl<'w, 's, B: Bundle> From<&'w mut EntityMutExcept<'_, 's, B>> for EntityMutExcept<'w, 's, B> {
    fn from(value: &'w mut EntityMutExcept<'_, 's, B>) -> Self {
        value.reborrow()
    }
}

impl<'w, 's, B: Bundle> From<EntityMutExcept<'w, 's, B>> for EntityRefExcept<'w, 's, B> {
    fn from(value: EntityMutExcept<'w, 's, B>) -> Self {
        value.into_readonly()
    }
}

impl<'w, 's, B: Bundle> From<&'w EntityMutExcept<'_, 's, B>> for EntityRefExcept<'w, 's, B> {
    fn from(value: &'w EntityMutExcept<'_, 's, B>) -> Self {
        value.as_readonly()
    }
}

/// Equality, order and hashing by entity, as for the other handles.
macro_rules! by_entity {
    ($ty:ident) => {
        impl<B: Bundle> PartialEq for $ty<'_, '_, B> {
            fn eq(&self, other: &Self) -> bool {
                self.id() == other.id()
            }
        }

        impl<B: Bundle> Eq for $ty<'_, '_, B> {}

        impl<B: Bundle> PartialOrd for $ty<'_, '_, B> {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        impl<B: Bundle> Ord for $ty<'_, '_, B> {
            fn cmp(&self, other: &Self) -> Ordering {
                self.id().cmp(&other.id())
            }
        }

        impl<B: Bundle> Hash for $ty<'_, '_, B> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.id().hash(state);
            }
        }

        impl<B: Bundle> std::fmt::Debug for $ty<'_, '_, B> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("entity", &self.id())
                    .finish()
            }
        }
    };
}

by_entity!(EntityRefExcept);
by_entity!(EntityMutExcept);
