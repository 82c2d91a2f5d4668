//! Spawning related entities from a bundle: `children![..]`,
//! `related!(..)` and [`SpawnRelated::spawn`].
//!
//! A [`SpawnRelatedBundle`] is a sparse-set component holding a
//! [`SpawnableList`]. Its `on_insert` hook queues a command that takes it
//! back out of the entity and spawns the list, each entity related to
//! that entity; the command applies right after the spawn or insert, before
//! it returns (or, through `Commands`, right after that command). Bundles
//! without one pay nothing for it.
//!
//! Unlike bevy, which applies such bundles through a bundle effect, this
//! uses a hook of a transient component, so bundles need no effect
//! machinery: an observer of the entity's `Add` sees the children only
//! once that command has applied.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Label(&'static str);
//!
//! let mut world = World::new();
//! let root = world
//!     .spawn((
//!         Label("root"),
//!         Children::spawn((Spawn(Label("a")), SpawnIter(["b", "c"].into_iter().map(Label)))),
//!     ))
//!     .id();
//! let labels: Vec<_> = world.get::<Children>(root).unwrap().iter()
//!     .map(|e| world.get::<Label>(e).unwrap().0)
//!     .collect();
//! assert_eq!(labels, ["a", "b", "c"]);
//! ```

use std::marker::PhantomData;

use crate::{
    bundle::Bundle,
    component::{Component, ComponentHooks, StorageType},
    entity::Entity,
    lifecycle::HookContext,
    relationship::{RelatedSpawner, Relationship, RelationshipTarget},
    world::{DeferredWorld, World},
};

/// One entity to spawn with bundle `B`, related to the entity the list is
/// spawned for.
pub struct Spawn<B: Bundle>(pub B);

/// Entities to spawn related to one target, each with `R` pointing at it.
pub trait SpawnableList<R>: Sized {
    /// Spawns the entities, each related to `entity`.
    fn spawn(self, world: &mut World, entity: Entity);

    /// How many entities it spawns, as far as known.
    fn size_hint(&self) -> usize;
}

impl<R: Relationship, B: Bundle> SpawnableList<R> for Spawn<B> {
    fn spawn(self, world: &mut World, entity: Entity) {
        world.spawn((R::from(entity), self.0));
    }

    fn size_hint(&self) -> usize {
        1
    }
}

impl<R: Relationship, B: Bundle> SpawnableList<R> for Vec<B> {
    fn spawn(self, world: &mut World, entity: Entity) {
        for bundle in self {
            world.spawn((R::from(entity), bundle));
        }
    }

    fn size_hint(&self) -> usize {
        self.len()
    }
}

/// Entities to spawn from each bundle an iterator yields.
pub struct SpawnIter<I>(pub I);

impl<R: Relationship, I: Iterator<Item = B> + Send + Sync + 'static, B: Bundle> SpawnableList<R>
    for SpawnIter<I>
{
    fn spawn(self, world: &mut World, entity: Entity) {
        for bundle in self.0 {
            world.spawn((R::from(entity), bundle));
        }
    }

    fn size_hint(&self) -> usize {
        self.0.size_hint().0
    }
}

/// Entities a function spawns through a [`RelatedSpawner`].
pub struct SpawnWith<F>(pub F);

impl<R: Relationship, F: FnOnce(&mut RelatedSpawner<'_, R>) + Send + Sync + 'static>
    SpawnableList<R> for SpawnWith<F>
{
    fn spawn(self, world: &mut World, entity: Entity) {
        (self.0)(&mut RelatedSpawner::new(world, entity));
    }

    fn size_hint(&self) -> usize {
        1
    }
}

/// Existing entities to relate (not spawn) to the target.
pub struct WithRelated<I>(pub I);

impl<I> WithRelated<I> {
    /// The entities of `iter`.
    pub fn new(iter: impl IntoIterator<IntoIter = I>) -> Self {
        WithRelated(iter.into_iter())
    }
}

impl<R: Relationship, I: Iterator<Item = Entity>> SpawnableList<R> for WithRelated<I> {
    fn spawn(self, world: &mut World, entity: Entity) {
        let related: Vec<Entity> = self.0.collect();
        world.entity_mut(entity).add_related::<R>(&related);
    }

    fn size_hint(&self) -> usize {
        self.0.size_hint().0
    }
}

/// One existing entity to relate (not spawn) to the target.
pub struct WithOneRelated(pub Entity);

impl<R: Relationship> SpawnableList<R> for WithOneRelated {
    fn spawn(self, world: &mut World, entity: Entity) {
        world.entity_mut(entity).add_one_related::<R>(self.0);
    }

    fn size_hint(&self) -> usize {
        1
    }
}

macro_rules! spawnable_list_tuple {
    ($($list:ident),*) => {
        impl<R: Relationship, $($list: SpawnableList<R>),*> SpawnableList<R> for ($($list,)*) {
            #[allow(non_snake_case, unused_variables)]
            fn spawn(self, world: &mut World, entity: Entity) {
                let ($($list,)*) = self;
                $($list.spawn(world, entity);)*
            }

            #[allow(non_snake_case)]
            fn size_hint(&self) -> usize {
                let ($($list,)*) = self;
                0 $(+ $list.size_hint())*
            }
        }
    };
}

crate::utils::all_tuples!(spawnable_list_tuple; L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11);

/// A bundle that spawns the entities of `L`, each related by `R` to the
/// entity it is inserted into: made by [`SpawnRelated::spawn`],
/// `children![..]` and `related!(..)`. It does not stay on the entity.
pub struct SpawnRelatedBundle<R: Relationship, L: SpawnableList<R>> {
    list: L,
    _marker: PhantomData<fn() -> R>,
}

/// A bundle spawning one related entity: [`SpawnRelated::spawn_one`].
pub type SpawnOneRelated<R, B> = SpawnRelatedBundle<R, Spawn<B>>;

impl<R: Relationship, L: SpawnableList<R> + Send + Sync + 'static> Component
    for SpawnRelatedBundle<R, L>
{
    // Added and taken straight back: a sparse set moves no table row.
    const STORAGE_TYPE: StorageType = StorageType::SparseSet;
    type Mutability = crate::component::Mutable;

    fn register_component_hooks(hooks: &mut ComponentHooks) {
        hooks.on_insert(spawn_list_hook::<R, L>);
    }
}

/// Queues taking the bundle out of the entity and spawning its list.
fn spawn_list_hook<R: Relationship, L: SpawnableList<R> + Send + Sync + 'static>(
    mut world: DeferredWorld,
    HookContext { entity, .. }: HookContext,
) {
    world.commands().queue(move |world: &mut World| {
        let Ok(mut entity_mut) = world.get_entity_mut(entity) else {
            return;
        };
        if let Some(bundle) = entity_mut.take::<SpawnRelatedBundle<R, L>>() {
            bundle.list.spawn(world, entity);
        }
    });
}

/// Makes bundles spawning related entities, for every
/// [`RelationshipTarget`]: `Children::spawn((Spawn(a), Spawn(b)))`.
pub trait SpawnRelated: RelationshipTarget {
    /// A bundle spawning the entities of `list`, related to the entity it
    /// is inserted into.
    fn spawn<L: SpawnableList<Self::Relationship>>(
        list: L,
    ) -> SpawnRelatedBundle<Self::Relationship, L>;

    /// A bundle spawning one entity with `bundle`, related to the entity
    /// it is inserted into.
    fn spawn_one<B: Bundle>(bundle: B) -> SpawnOneRelated<Self::Relationship, B>;
}

impl<T: RelationshipTarget> SpawnRelated for T {
    fn spawn<L: SpawnableList<Self::Relationship>>(
        list: L,
    ) -> SpawnRelatedBundle<Self::Relationship, L> {
        SpawnRelatedBundle {
            list,
            _marker: PhantomData,
        }
    }

    fn spawn_one<B: Bundle>(bundle: B) -> SpawnOneRelated<Self::Relationship, B> {
        SpawnRelatedBundle {
            list: Spawn(bundle),
            _marker: PhantomData,
        }
    }
}

/// A bundle spawning each expression (a bundle) related to the entity it
/// is inserted into, by the relationship of the target type:
/// `related!(Children[A, (B, C)])`.
#[macro_export]
macro_rules! related {
    ($relationship_target:ty [$($child:expr),* $(,)?]) => {
        <$relationship_target as $crate::spawn::SpawnRelated>::spawn(
            $crate::__spawn_list!($($child),*)
        )
    };
}

/// Nests the `Spawn`s of `related!` into tuples of at most twelve.
#[doc(hidden)]
#[macro_export]
macro_rules! __spawn_list {
    () => { () };
    ($a:expr $(,)?) => { ($crate::spawn::Spawn($a),) };
    ($a:expr, $b:expr $(,)?) => { ($crate::spawn::Spawn($a), $crate::spawn::Spawn($b)) };
    ($a:expr, $b:expr, $c:expr $(,)?) => {
        ($crate::spawn::Spawn($a), $crate::spawn::Spawn($b), $crate::spawn::Spawn($c))
    };
    ($a:expr, $b:expr, $c:expr, $($rest:expr),+ $(,)?) => {
        (
            $crate::spawn::Spawn($a),
            $crate::spawn::Spawn($b),
            $crate::spawn::Spawn($c),
            $crate::__spawn_list!($($rest),+),
        )
    };
}
