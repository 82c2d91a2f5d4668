//! [`ComponentEntry`]: one component of one entity, present or not, as a
//! map entry is ([`EntityWorldMut::entry`]).

use std::marker::PhantomData;

use super::EntityWorldMut;
use crate::{
    change_detection::Mut,
    component::{Component, Mutable},
};

impl<'w> EntityWorldMut<'w> {
    /// The entity's component `T` as an entry: occupied if the entity has
    /// one, vacant if not, to read, modify or insert it in one chain.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Default, Debug, PartialEq)]
    /// struct Hits(u32);
    ///
    /// let mut world = World::new();
    /// let mut e = world.spawn_empty();
    /// e.entry::<Hits>().or_default().into_mut().0 += 1;
    /// e.entry::<Hits>().and_modify(|mut h| h.0 += 1).or_insert(Hits(9));
    /// assert_eq!(e.get::<Hits>(), Some(&Hits(2)));
    /// ```
    ///
    /// # Panics
    /// If the entity was despawned (by a command a hook or observer queued).
    #[track_caller]
    pub fn entry<'a, T: Component>(&'a mut self) -> ComponentEntry<'w, 'a, T> {
        if self.contains::<T>() {
            ComponentEntry::Occupied(OccupiedComponentEntry {
                entity_world: self,
                _marker: PhantomData,
            })
        } else {
            ComponentEntry::Vacant(VacantComponentEntry {
                entity_world: self,
                _marker: PhantomData,
            })
        }
    }
}

/// An entity's component `T`, present ([`Occupied`](Self::Occupied)) or
/// not ([`Vacant`](Self::Vacant)), from [`EntityWorldMut::entry`].
pub enum ComponentEntry<'w, 'a, T: Component> {
    /// The entity has a `T`.
    Occupied(OccupiedComponentEntry<'w, 'a, T>),
    /// The entity has no `T`.
    Vacant(VacantComponentEntry<'w, 'a, T>),
}

impl<'w, 'a, T: Component<Mutability = Mutable>> ComponentEntry<'w, 'a, T> {
    /// Runs `f` on the value if there is one (marking it changed if `f`
    /// writes), and returns the entry.
    #[inline]
    pub fn and_modify<F: FnOnce(Mut<'_, T>)>(self, f: F) -> Self {
        match self {
            ComponentEntry::Occupied(mut entry) => {
                f(entry.get_mut());
                ComponentEntry::Occupied(entry)
            }
            vacant => vacant,
        }
    }
}

impl<'w, 'a, T: Component> ComponentEntry<'w, 'a, T> {
    /// Inserts `component`, replacing any value there (as
    /// [`EntityWorldMut::insert`] does), and returns the occupied entry.
    #[inline]
    #[track_caller]
    pub fn insert_entry(self, component: T) -> OccupiedComponentEntry<'w, 'a, T> {
        match self {
            ComponentEntry::Occupied(mut entry) => {
                entry.insert(component);
                entry
            }
            ComponentEntry::Vacant(entry) => entry.insert(component),
        }
    }

    /// Inserts `default` if the entity has no `T` (else drops it), and
    /// returns the occupied entry.
    #[inline]
    #[track_caller]
    pub fn or_insert(self, default: T) -> OccupiedComponentEntry<'w, 'a, T> {
        match self {
            ComponentEntry::Occupied(entry) => entry,
            ComponentEntry::Vacant(entry) => entry.insert(default),
        }
    }

    /// Inserts `default()` if the entity has no `T` (`default` is not
    /// called otherwise), and returns the occupied entry. If `default`
    /// panics, nothing is inserted.
    #[inline]
    #[track_caller]
    pub fn or_insert_with<F: FnOnce() -> T>(self, default: F) -> OccupiedComponentEntry<'w, 'a, T> {
        match self {
            ComponentEntry::Occupied(entry) => entry,
            ComponentEntry::Vacant(entry) => entry.insert(default()),
        }
    }
}

impl<'w, 'a, T: Component + Default> ComponentEntry<'w, 'a, T> {
    /// Inserts `T::default()` if the entity has no `T`, and returns the
    /// occupied entry.
    #[inline]
    #[track_caller]
    pub fn or_default(self) -> OccupiedComponentEntry<'w, 'a, T> {
        self.or_insert_with(T::default)
    }
}

/// An entity's component `T` that is present.
pub struct OccupiedComponentEntry<'w, 'a, T: Component> {
    entity_world: &'a mut EntityWorldMut<'w>,
    _marker: PhantomData<T>,
}

impl<'w, 'a, T: Component> OccupiedComponentEntry<'w, 'a, T> {
    /// The value.
    #[inline]
    #[track_caller]
    pub fn get(&self) -> &T {
        match self.entity_world.get::<T>() {
            Some(value) => value,
            None => gone::<T>(self.entity_world),
        }
    }

    /// Replaces the value with `component` (as [`EntityWorldMut::insert`]
    /// does: hooks and observers run, the old value is dropped).
    #[inline]
    #[track_caller]
    pub fn insert(&mut self, component: T) {
        self.entity_world.insert(component);
    }

    /// Removes the value from the entity and returns it.
    #[inline]
    #[track_caller]
    pub fn take(self) -> T {
        match self.entity_world.take::<T>() {
            Some(value) => value,
            None => gone::<T>(self.entity_world),
        }
    }
}

impl<'w, 'a, T: Component<Mutability = Mutable>> OccupiedComponentEntry<'w, 'a, T> {
    /// The value, mutably; writing marks it changed.
    #[inline]
    #[track_caller]
    pub fn get_mut(&mut self) -> Mut<'_, T> {
        if !self.entity_world.contains::<T>() {
            gone::<T>(self.entity_world)
        }
        self.entity_world.get_mut::<T>().expect("checked above")
    }

    /// The value, mutably, for the entry's whole borrow.
    #[inline]
    #[track_caller]
    pub fn into_mut(self) -> Mut<'a, T> {
        if !self.entity_world.contains::<T>() {
            gone::<T>(self.entity_world)
        }
        self.entity_world.get_mut::<T>().expect("checked above")
    }
}

/// An entity's component `T` that is absent.
pub struct VacantComponentEntry<'w, 'a, T: Component> {
    entity_world: &'a mut EntityWorldMut<'w>,
    _marker: PhantomData<T>,
}

impl<'w, 'a, T: Component> VacantComponentEntry<'w, 'a, T> {
    /// Inserts `component` (hooks and observers run) and returns the
    /// occupied entry.
    #[inline]
    #[track_caller]
    pub fn insert(self, component: T) -> OccupiedComponentEntry<'w, 'a, T> {
        self.entity_world.insert(component);
        OccupiedComponentEntry {
            entity_world: self.entity_world,
            _marker: PhantomData,
        }
    }
}

/// A hook, observer or command they queued removed the value the entry
/// stood for.
#[cold]
#[track_caller]
fn gone<T>(entity: &EntityWorldMut<'_>) -> ! {
    panic!(
        "entity {} no longer has a `{}`: a hook, observer or command removed it after the entry was made",
        entity.id(),
        std::any::type_name::<T>()
    )
}
