//! Removal detection; see the [`lifecycle`](super) module docs.

use std::{any::type_name, marker::PhantomData};

use crate::{
    archetype::ArchetypeFlags,
    change_detection::Tick,
    component::{Component, ComponentId},
    entity::Entity,
    message::{
        Message, MessageCursor, MessageId, MessageIterator, MessageIteratorWithId, Messages,
    },
    storage::SparseSet,
    system::{ReadOnlySystemParam, SystemMeta, SystemParam},
    world::{UnsafeWorldCell, World},
};

/// The entity of a removal message: it lost the component the buffer is
/// for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemovedComponentEntity(Entity);

impl Message for RemovedComponentEntity {}

impl From<RemovedComponentEntity> for Entity {
    fn from(removed: RemovedComponentEntity) -> Entity {
        removed.0
    }
}

/// The removal messages of every tracked component of a world.
#[derive(Debug, Default)]
pub struct RemovedComponentMessages {
    event_sets: SparseSet<ComponentId, Messages<RemovedComponentEntity>>,
}

impl RemovedComponentMessages {
    /// An empty store, tracking nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Swaps every component's buffers and drops the older one
    /// ([`Messages::update`]); [`World::clear_trackers`] calls it.
    pub fn update(&mut self) {
        for messages in self.event_sets.values_mut() {
            messages.update();
        }
    }

    /// Every tracked component and its messages.
    pub fn iter(&self) -> impl Iterator<Item = (&ComponentId, &Messages<RemovedComponentEntity>)> {
        self.event_sets.iter()
    }

    /// The messages of a component, if it is tracked.
    pub fn get(&self, component_id: ComponentId) -> Option<&Messages<RemovedComponentEntity>> {
        self.event_sets.get(component_id)
    }

    /// Whether the removals of `component_id` are recorded.
    #[inline]
    pub fn is_tracked(&self, component_id: ComponentId) -> bool {
        self.event_sets.contains(component_id)
    }

    /// Writes a removal message for a component; starts tracking it if it
    /// was not tracked.
    pub fn write(&mut self, component_id: ComponentId, entity: Entity) {
        self.event_sets
            .get_or_insert_with(component_id, Messages::default)
            .write(RemovedComponentEntity(entity));
    }

    /// Records that `entity` lost the tracked ones among `components`.
    pub(crate) fn record(&mut self, entity: Entity, components: impl Iterator<Item = ComponentId>) {
        for id in components {
            if let Some(messages) = self.event_sets.get_mut(id) {
                messages.write(RemovedComponentEntity(entity));
            }
        }
    }
}

impl World {
    /// Starts recording the removals of `T`, if not yet recorded, and
    /// returns its id. A [`RemovedComponents<T>`] parameter does this when
    /// its system is initialised; call it at setup to also see removals
    /// that happen before then.
    pub fn track_removals<T: Component>(&mut self) -> ComponentId {
        let id = self.register_component::<T>();
        self.track_removals_by_id(id);
        id
    }

    /// [`track_removals`](Self::track_removals) for a registered component
    /// id.
    ///
    /// # Panics
    /// If `id` is not a registered component.
    #[track_caller]
    pub fn track_removals_by_id(&mut self, id: ComponentId) {
        assert!(
            self.components.get_info(id).is_some(),
            "track_removals_by_id: {id:?} is not a registered component"
        );
        if self.removed_components.is_tracked(id) {
            return;
        }
        self.removed_components
            .event_sets
            .insert(id, Messages::default());
        let flag = ArchetypeFlags::REMOVAL_TRACKED;
        self.components.add_observer_flags(id, flag);
        self.archetypes.add_flags_for_component(id, flag);
    }

    /// The removal messages of every tracked component.
    pub fn removed_components(&self) -> &RemovedComponentMessages {
        &self.removed_components
    }

    /// The entities that lost `T` (by `remove`, `take` or despawn) since
    /// the last [`World::clear_trackers`], oldest first.
    ///
    /// Removals are recorded only for tracked components
    /// ([`World::track_removals`], or a [`RemovedComponents<T>`] in an
    /// initialised system) so that worlds that do not watch removals pay
    /// nothing for them; bevy records every component's.
    ///
    /// # Panics
    /// If `T`'s removals are not tracked, naming `T`: an empty answer would
    /// be a wrong one.
    #[track_caller]
    pub fn removed<T: Component>(&self) -> impl Iterator<Item = Entity> + '_ {
        let Some(id) = self
            .component_id::<T>()
            .filter(|&id| self.removed_components.is_tracked(id))
        else {
            panic!(
                "World::removed::<{0}>: the removals of `{0}` are not tracked; call \
                 `world.track_removals::<{0}>()` first (a `RemovedComponents<{0}>` in an \
                 initialised system does it too)",
                type_name::<T>()
            )
        };
        self.removed_with_id(id)
    }

    /// The entities that lost component `id` since the last
    /// [`World::clear_trackers`], oldest first; nothing if `id` is not
    /// tracked.
    pub fn removed_with_id(&self, id: ComponentId) -> impl Iterator<Item = Entity> + '_ {
        self.removed_components
            .get(id)
            .into_iter()
            .flat_map(|messages| messages.iter_current_update_messages())
            .map(|removed| removed.0)
    }
}

/// The entities that lost component `T` (by `remove`, `take` or despawn)
/// since this system last read, oldest first: a
/// [`MessageReader`](crate::message::MessageReader) of removals, with its
/// own cursor, so every reader sees every removal once as long as it runs
/// at least once between two [`World::clear_trackers`].
///
/// Initialising the system starts tracking `T`'s removals (see the
/// [module docs](crate::lifecycle#removal-detection)): removals before then are not recorded unless
/// [`World::track_removals`] was called.
pub struct RemovedComponents<'w, 's, T: Component> {
    component_id: ComponentId,
    reader: &'s mut MessageCursor<RemovedComponentEntity>,
    message_sets: &'w RemovedComponentMessages,
    marker: PhantomData<fn() -> T>,
}

impl<T: Component> std::fmt::Debug for RemovedComponents<'_, '_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemovedComponents")
            .field("component", &type_name::<T>())
            .field("unread", &self.len())
            .finish()
    }
}

/// An iterator over the entities a [`RemovedComponents`] read.
pub type RemovedIter<'a> = std::iter::Map<
    std::iter::Flatten<std::option::IntoIter<MessageIterator<'a, RemovedComponentEntity>>>,
    fn(&RemovedComponentEntity) -> Entity,
>;

type WithIdFn = fn(
    (&RemovedComponentEntity, MessageId<RemovedComponentEntity>),
) -> (Entity, MessageId<RemovedComponentEntity>);

/// An iterator over the entities a [`RemovedComponents`] read, with their
/// message ids.
pub type RemovedIterWithId<'a> = std::iter::Map<
    std::iter::Flatten<std::option::IntoIter<MessageIteratorWithId<'a, RemovedComponentEntity>>>,
    WithIdFn,
>;

fn entity_of(removed: &RemovedComponentEntity) -> Entity {
    removed.0
}

fn entity_and_id(
    (removed, id): (&RemovedComponentEntity, MessageId<RemovedComponentEntity>),
) -> (Entity, MessageId<RemovedComponentEntity>) {
    (removed.0, id)
}

impl<T: Component> RemovedComponents<'_, '_, T> {
    /// This reader's cursor.
    pub fn reader(&self) -> &MessageCursor<RemovedComponentEntity> {
        self.reader
    }

    /// This reader's cursor, mutably.
    pub fn reader_mut(&mut self) -> &mut MessageCursor<RemovedComponentEntity> {
        self.reader
    }

    /// The removal messages of `T`.
    pub fn messages(&self) -> Option<&Messages<RemovedComponentEntity>> {
        self.message_sets.get(self.component_id)
    }

    /// The cursor and the messages it reads, borrowed at once.
    pub fn reader_mut_with_messages(
        &mut self,
    ) -> Option<(
        &mut MessageCursor<RemovedComponentEntity>,
        &Messages<RemovedComponentEntity>,
    )> {
        let messages = self.message_sets.get(self.component_id)?;
        Some((&mut *self.reader, messages))
    }

    /// The entities this reader has not read yet, oldest first; each one
    /// yielded is marked read.
    pub fn read(&mut self) -> RemovedIter<'_> {
        self.reader_mut_with_messages()
            .map(|(reader, messages)| reader.read(messages))
            .into_iter()
            .flatten()
            .map(entity_of as fn(&RemovedComponentEntity) -> Entity)
    }

    /// [`read`](Self::read), with each message's id.
    pub fn read_with_id(&mut self) -> RemovedIterWithId<'_> {
        self.reader_mut_with_messages()
            .map(|(reader, messages)| reader.read_with_id(messages))
            .into_iter()
            .flatten()
            .map(entity_and_id as WithIdFn)
    }

    /// How many removals the next read yields.
    pub fn len(&self) -> usize {
        self.messages()
            .map_or(0, |messages| self.reader.len(messages))
    }

    /// Whether the next read yields nothing.
    pub fn is_empty(&self) -> bool {
        self.messages()
            .is_none_or(|messages| self.reader.is_empty(messages))
    }

    /// Marks every unread removal read, without reading it.
    pub fn clear(&mut self) {
        if let Some((reader, messages)) = self.reader_mut_with_messages() {
            reader.clear(messages);
        }
    }
}

// SAFETY: reads only the world's removal messages, which change only under
// `&mut World` (structural changes), never while systems run.
unsafe impl<T: Component> SystemParam for RemovedComponents<'_, '_, T> {
    type State = (ComponentId, MessageCursor<RemovedComponentEntity>);
    type Item<'w, 's> = RemovedComponents<'w, 's, T>;

    fn init_state(world: &mut World, _meta: &mut SystemMeta) -> Self::State {
        let id = world.track_removals::<T>();
        // A new reader starts at the oldest stored removal, as a new
        // message reader does.
        let cursor = world
            .removed_components
            .get(id)
            .map_or_else(MessageCursor::default, |messages| {
                MessageCursor::starting_at(messages.oldest_message_count())
            });
        (id, cursor)
    }

    unsafe fn get_param<'w, 's>(
        (component_id, reader): &'s mut Self::State,
        _meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        _change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        RemovedComponents {
            component_id: *component_id,
            reader,
            message_sets: world.removed_components(),
            marker: PhantomData,
        }
    }
}

// SAFETY: reads only the removal messages.
unsafe impl<T: Component> ReadOnlySystemParam for RemovedComponents<'_, '_, T> {}

// SAFETY: reads only the removal messages, which systems never write.
unsafe impl SystemParam for &RemovedComponentMessages {
    type State = ();
    type Item<'w, 's> = &'w RemovedComponentMessages;

    fn init_state(_world: &mut World, _meta: &mut SystemMeta) {}

    unsafe fn get_param<'w, 's>(
        _state: &'s mut (),
        _meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        _change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        world.removed_components()
    }
}

// SAFETY: as above.
unsafe impl ReadOnlySystemParam for &RemovedComponentMessages {}
