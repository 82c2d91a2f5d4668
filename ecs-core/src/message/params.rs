//! The system parameters: [`MessageReader`], [`MessageWriter`] and
//! [`MessageMutator`].
//!
//! Each is `Messages<M>` as a resource (`Res` for the reader, `ResMut` for
//! the others, so the scheduler orders them as it orders those) plus, for
//! the reader and the mutator, a [`MessageCursor`] kept in the system's
//! state. Their access is recorded under the parameter's own name, so a
//! conflict names `MessageWriter<M>` and the `Messages<M>` resource.

use std::any::type_name;

use super::{
    Message, MessageCursor, MessageId, MessageIterator, MessageIteratorWithId, MessageMutIterator,
    MessageMutIteratorWithId, MessageMutParIter, MessageParIter, Messages, WriteBatchIds,
};
use crate::{
    change_detection::Tick,
    component::ComponentId,
    query::FilteredAccess,
    system::{
        Local, ReadOnlySystemParam, Res, ResMut, SystemMeta, SystemParam,
        SystemParamValidationError,
    },
    world::{UnsafeWorldCell, World},
};

/// Registers `Messages<M>` as a resource and records the access of the
/// parameter `kind` to it.
fn messages_access<M: Message>(
    world: &mut World,
    meta: &mut SystemMeta,
    kind: &str,
    write: bool,
) -> ComponentId {
    let param = format!("{kind}<{}>", type_name::<M>());
    let id = world.components.register_resource::<Messages<M>>();
    let mut access = crate::query::Access::default();
    if write {
        access.add_write(id);
    } else {
        access.add_read(id);
    }
    let access = FilteredAccess::resources(access);
    meta.add_param_access(&param, access, world);
    id
}

type CursorState<M> = <Local<'static, MessageCursor<M>> as SystemParam>::State;

/// A new reader's cursor: at the oldest stored message, so it reads every
/// stored message and counts as lost only what is dropped from now on.
fn init_cursor<M: Message>(world: &mut World, meta: &mut SystemMeta) -> CursorState<M> {
    let mut cursor = Local::<MessageCursor<M>>::init_state(world, meta);
    if let Some(messages) = world.get_resource::<Messages<M>>() {
        cursor.get().last_message_count = messages.oldest_message_count();
    }
    cursor
}

/// The validation error of the parameter `P` (a `kind` of `M`) when `M`
/// is not registered, naming the message type and the system.
#[cold]
fn unregistered<P, M: Message>(kind: &str, meta: &SystemMeta) -> SystemParamValidationError {
    SystemParamValidationError::invalid::<P>(format!(
        "message `{}` used by a `{kind}` in system `{}` is not registered: call \
         `world.add_message::<{0}>()` (or `MessageRegistry::register_message`) before running it",
        type_name::<M>(),
        meta.name()
    ))
}

/// Fetches `Messages<M>` for reading for the parameter `P`, a `kind`; a
/// validation error naming the message type when it is not registered.
///
/// # Safety
/// As [`SystemParam::get_param`], with `id` recorded as read by `meta`.
unsafe fn fetch<'w, P, M: Message>(
    id: &mut ComponentId,
    meta: &SystemMeta,
    world: UnsafeWorldCell<'w>,
    change_tick: Tick,
    kind: &str,
) -> Result<Res<'w, Messages<M>>, SystemParamValidationError> {
    // SAFETY: the caller recorded a read of `id`, `Messages<M>`'s id.
    let found = unsafe { Option::<Res<Messages<M>>>::get_param(id, meta, world, change_tick) };
    match found {
        Some(messages) => Ok(messages),
        // A resource taken by `resource_scope` gets `Res`'s own panic, which says so.
        None if world.resource_is_scoped(std::any::TypeId::of::<Messages<M>>()) => {
            // SAFETY: as above.
            Ok(unsafe { Res::<Messages<M>>::get_param(id, meta, world, change_tick) })
        }
        None => Err(unregistered::<P, M>(kind, meta)),
    }
}

/// Fetches `Messages<M>` for writing; see [`fetch`].
///
/// # Safety
/// As [`SystemParam::get_param`], with `id` recorded as written by `meta`.
unsafe fn fetch_mut<'w, P, M: Message>(
    id: &mut ComponentId,
    meta: &SystemMeta,
    world: UnsafeWorldCell<'w>,
    change_tick: Tick,
    kind: &str,
) -> Result<ResMut<'w, Messages<M>>, SystemParamValidationError> {
    // SAFETY: the caller recorded a write of `id`, `Messages<M>`'s id.
    let found = unsafe { Option::<ResMut<Messages<M>>>::get_param(id, meta, world, change_tick) };
    match found {
        Some(messages) => Ok(messages),
        None if world.resource_is_scoped(std::any::TypeId::of::<Messages<M>>()) => {
            // SAFETY: as above.
            Ok(unsafe { ResMut::<Messages<M>>::get_param(id, meta, world, change_tick) })
        }
        None => Err(unregistered::<P, M>(kind, meta)),
    }
}

/// Panics with a parameter's validation error (`get_param`'s way of
/// failing).
#[track_caller]
fn or_panic<T>(result: Result<T, SystemParamValidationError>) -> T {
    result.unwrap_or_else(|error| panic!("{error}"))
}

/// Reads the messages of type `M` its system has not read yet, oldest
/// first; each system's reader has its own cursor, so every reader sees
/// every message once.
///
/// Readers of one type run in parallel with each other, but not with a
/// [`MessageWriter`] or [`MessageMutator`] of that type. A reader and a
/// writer of one type in one system conflict (initialising the system
/// panics, naming `Messages<M>`), as in bevy: use a [`MessageMutator`].
/// A system whose message type is not registered fails parameter
/// validation, naming it and the system (`run_system_once` returns the
/// error; in a schedule the default error handler panics with it), and an
/// `Option<MessageReader<M>>` is `None`, as in bevy.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Message)]
/// struct Chat(String);
///
/// fn print_chat(mut chat: MessageReader<Chat>) {
///     for Chat(line) in chat.read() {
///         println!("{line}");
///     }
/// }
/// # let mut world = World::new();
/// # world.add_message::<Chat>();
/// # world.run_system_once(print_chat).unwrap();
/// ```
#[derive(Debug)]
pub struct MessageReader<'w, 's, M: Message> {
    reader: Local<'s, MessageCursor<M>>,
    messages: Res<'w, Messages<M>>,
}

impl<M: Message> MessageReader<'_, '_, M> {
    /// The messages this reader has not read, oldest first; each one
    /// yielded is marked read.
    pub fn read(&mut self) -> MessageIterator<'_, M> {
        self.reader.read(&self.messages)
    }

    /// [`read`](Self::read), with each message's id.
    pub fn read_with_id(&mut self) -> MessageIteratorWithId<'_, M> {
        self.reader.read_with_id(&self.messages)
    }

    /// The unread messages, for a walk on rayon's thread pool
    /// ([`MessageParIter::for_each`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    ///
    /// #[derive(Message)]
    /// struct Value(usize);
    ///
    /// let mut world = World::new();
    /// world.add_message::<Value>();
    /// world.write_message_batch((0..100).map(Value));
    /// let sum = world
    ///     .run_system_once(|mut values: MessageReader<Value>| {
    ///         let sum = AtomicUsize::new(0);
    ///         values.par_read().for_each(|v| {
    ///             sum.fetch_add(v.0, Ordering::Relaxed);
    ///         });
    ///         sum.into_inner()
    ///     })
    ///     .unwrap();
    /// assert_eq!(sum, 4950);
    /// ```
    pub fn par_read(&mut self) -> MessageParIter<'_, M> {
        self.reader.par_read(&self.messages)
    }

    /// How many messages the next read yields.
    pub fn len(&self) -> usize {
        self.reader.len(&self.messages)
    }

    /// Whether the next read yields nothing.
    pub fn is_empty(&self) -> bool {
        self.reader.is_empty(&self.messages)
    }

    /// Marks every unread message read, without reading it.
    pub fn clear(&mut self) {
        self.reader.clear(&self.messages);
    }

    /// How many messages this reader lost over its life: dropped by two
    /// updates before it read them, including those its next read will
    /// skip. Zero for a reader that reads between every two updates (see
    /// the [module docs](super)).
    ///
    /// Bevy logs a warning instead; nothing is printed here.
    pub fn missed_messages(&self) -> usize {
        self.reader.total_missed() + self.reader.missed_messages(&self.messages)
    }
}

// SAFETY: records a read of `Messages<M>`, the only world data fetched.
unsafe impl<M: Message> SystemParam for MessageReader<'_, '_, M> {
    type State = (CursorState<M>, ComponentId);
    type Item<'w, 's> = MessageReader<'w, 's, M>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        let cursor = init_cursor::<M>(world, meta);
        let id = messages_access::<M>(world, meta, "MessageReader", false);
        (cursor, id)
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> MessageReader<'w, 's, M> {
        // SAFETY: forwarded.
        or_panic(unsafe { Self::try_get_param(state, meta, world, change_tick) })
    }

    unsafe fn try_get_param<'w, 's>(
        (cursor, id): &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<MessageReader<'w, 's, M>, SystemParamValidationError> {
        // SAFETY: `init_state` recorded the read of `id`.
        let messages = unsafe { fetch::<Self, M>(id, meta, world, change_tick, "MessageReader") }?;
        Ok(MessageReader {
            // SAFETY: the cursor is this parameter's own state.
            reader: unsafe { Local::get_param(cursor, meta, world, change_tick) },
            messages,
        })
    }
}

// SAFETY: only reads `Messages<M>`.
unsafe impl<M: Message> ReadOnlySystemParam for MessageReader<'_, '_, M> {}

/// A [`MessageReader`] that skips its system when there is no unread
/// message (as [`Populated`](crate::system::Populated) does for queries);
/// derefs to the reader.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::message::PopulatedMessageReader;
///
/// #[derive(Message)]
/// struct Hit(u32);
/// #[derive(Resource, Default)]
/// struct Runs(u32);
///
/// fn on_hits(mut hits: PopulatedMessageReader<Hit>, mut runs: ResMut<Runs>) {
///     runs.0 += hits.read().count() as u32;
/// }
///
/// let mut world = World::new();
/// world.add_message::<Hit>();
/// world.init_resource::<Runs>();
/// let mut schedule = Schedule::default();
/// schedule.add_systems(on_hits);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Runs>().0, 0);
/// world.write_message(Hit(1));
/// world.write_message(Hit(2));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Runs>().0, 2);
/// ```
#[derive(Debug)]
pub struct PopulatedMessageReader<'w, 's, M: Message>(MessageReader<'w, 's, M>);

impl<'w, 's, M: Message> std::ops::Deref for PopulatedMessageReader<'w, 's, M> {
    type Target = MessageReader<'w, 's, M>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<M: Message> std::ops::DerefMut for PopulatedMessageReader<'_, '_, M> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

// SAFETY: the access of a `MessageReader`, which it wraps.
unsafe impl<M: Message> SystemParam for PopulatedMessageReader<'_, '_, M> {
    type State = <MessageReader<'static, 'static, M> as SystemParam>::State;
    type Item<'w, 's> = PopulatedMessageReader<'w, 's, M>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        MessageReader::<M>::init_state(world, meta)
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> PopulatedMessageReader<'w, 's, M> {
        // SAFETY: forwarded.
        or_panic(unsafe { Self::try_get_param(state, meta, world, change_tick) })
    }

    unsafe fn try_get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<PopulatedMessageReader<'w, 's, M>, SystemParamValidationError> {
        // SAFETY: forwarded; the state is a `MessageReader`'s.
        let reader = unsafe { MessageReader::<M>::try_get_param(state, meta, world, change_tick) }?;
        if reader.is_empty() {
            return Err(SystemParamValidationError::skipped::<Self>(
                "no unread message",
            ));
        }
        Ok(PopulatedMessageReader(reader))
    }
}

// SAFETY: only reads `Messages<M>`, as a `MessageReader`.
unsafe impl<M: Message> ReadOnlySystemParam for PopulatedMessageReader<'_, '_, M> {}

/// Writes messages of type `M`.
///
/// It holds `Messages<M>` mutably, so two systems writing one type do not
/// run at once, and two writers (or a writer and a [`MessageReader`]) of
/// one type in one system conflict: initialising the system panics,
/// naming `Messages<M>`. A system whose message type is not registered
/// fails parameter validation, naming it and the system, as a
/// [`MessageReader`]'s does.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Message)]
/// struct Spawned(Entity);
///
/// fn spawn(mut commands: Commands, mut spawned: MessageWriter<Spawned>) {
///     let e = commands.spawn_empty().id();
///     spawned.write(Spawned(e));
/// }
/// # let mut world = World::new();
/// # world.add_message::<Spawned>();
/// # world.run_system_once(spawn).unwrap();
/// # assert_eq!(world.resource::<ecs::message::Messages<Spawned>>().len(), 1);
/// ```
#[derive(Debug)]
pub struct MessageWriter<'w, M: Message> {
    messages: ResMut<'w, Messages<M>>,
}

impl<M: Message> MessageWriter<'_, M> {
    /// Writes `message` and returns its id.
    #[doc(alias = "send")]
    #[track_caller]
    pub fn write(&mut self, message: M) -> MessageId<M> {
        self.messages.write(message)
    }

    /// Writes every message of `messages`, in order, and returns their ids.
    #[doc(alias = "send_batch")]
    #[track_caller]
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = M>) -> WriteBatchIds<M> {
        self.messages.write_batch(messages)
    }

    /// Writes `M::default()` and returns its id.
    #[doc(alias = "send_default")]
    #[track_caller]
    pub fn write_default(&mut self) -> MessageId<M>
    where
        M: Default,
    {
        self.messages.write_default()
    }
}

// SAFETY: records a write of `Messages<M>`, the only world data fetched.
unsafe impl<M: Message> SystemParam for MessageWriter<'_, M> {
    type State = ComponentId;
    type Item<'w, 's> = MessageWriter<'w, M>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> ComponentId {
        messages_access::<M>(world, meta, "MessageWriter", true)
    }

    unsafe fn get_param<'w, 's>(
        id: &'s mut ComponentId,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        // SAFETY: forwarded.
        or_panic(unsafe { Self::try_get_param(id, meta, world, change_tick) })
    }

    unsafe fn try_get_param<'w, 's>(
        id: &'s mut ComponentId,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        let messages = {
            // SAFETY: `init_state` recorded the write of `id`.
            unsafe { fetch_mut::<Self, M>(id, meta, world, change_tick, "MessageWriter") }?
        };
        Ok(MessageWriter { messages })
    }
}

/// Reads, changes and writes messages of type `M`: a [`MessageReader`]
/// whose messages are mutable, and a [`MessageWriter`], in one parameter.
///
/// A message it writes is read by its own next read, and by every other
/// reader.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Message)]
/// struct Hit(u32);
///
/// fn double(mut hits: MessageMutator<Hit>) {
///     for hit in hits.read() {
///         hit.0 *= 2;
///     }
/// }
/// # let mut world = World::new();
/// # world.add_message::<Hit>();
/// # world.write_message(Hit(2));
/// # world.run_system_once(double).unwrap();
/// # assert_eq!(world.resource::<ecs::message::Messages<Hit>>().get_message(0).unwrap().0 .0, 4);
/// ```
#[derive(Debug)]
pub struct MessageMutator<'w, 's, M: Message> {
    reader: Local<'s, MessageCursor<M>>,
    messages: ResMut<'w, Messages<M>>,
}

impl<M: Message> MessageMutator<'_, '_, M> {
    /// The messages this mutator has not read, oldest first, mutably; each
    /// one yielded is marked read.
    pub fn read(&mut self) -> MessageMutIterator<'_, M> {
        self.reader.read_mut(&mut self.messages)
    }

    /// [`read`](Self::read), with each message's id.
    pub fn read_with_id(&mut self) -> MessageMutIteratorWithId<'_, M> {
        self.reader.read_mut_with_id(&mut self.messages)
    }

    /// The unread messages, mutably, for a walk on rayon's thread pool.
    pub fn par_read(&mut self) -> MessageMutParIter<'_, M> {
        self.reader.par_read_mut(&mut self.messages)
    }

    /// How many messages the next read yields.
    pub fn len(&self) -> usize {
        self.reader.len(&self.messages)
    }

    /// Whether the next read yields nothing.
    pub fn is_empty(&self) -> bool {
        self.reader.is_empty(&self.messages)
    }

    /// Marks every unread message read, without reading it.
    pub fn clear(&mut self) {
        self.reader.clear(&self.messages);
    }

    /// How many messages this mutator lost over its life; see
    /// [`MessageReader::missed_messages`].
    pub fn missed_messages(&self) -> usize {
        self.reader.total_missed() + self.reader.missed_messages(&self.messages)
    }

    /// Writes `message` and returns its id.
    #[track_caller]
    pub fn write(&mut self, message: M) -> MessageId<M> {
        self.messages.write(message)
    }

    /// Writes every message of `messages`, in order, and returns their ids.
    #[track_caller]
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = M>) -> WriteBatchIds<M> {
        self.messages.write_batch(messages)
    }

    /// Writes `M::default()` and returns its id.
    #[track_caller]
    pub fn write_default(&mut self) -> MessageId<M>
    where
        M: Default,
    {
        self.messages.write_default()
    }
}

// SAFETY: records a write of `Messages<M>`, the only world data fetched.
unsafe impl<M: Message> SystemParam for MessageMutator<'_, '_, M> {
    type State = (CursorState<M>, ComponentId);
    type Item<'w, 's> = MessageMutator<'w, 's, M>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        let cursor = init_cursor::<M>(world, meta);
        let id = messages_access::<M>(world, meta, "MessageMutator", true);
        (cursor, id)
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> MessageMutator<'w, 's, M> {
        // SAFETY: forwarded.
        or_panic(unsafe { Self::try_get_param(state, meta, world, change_tick) })
    }

    unsafe fn try_get_param<'w, 's>(
        (cursor, id): &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<MessageMutator<'w, 's, M>, SystemParamValidationError> {
        let messages = {
            // SAFETY: `init_state` recorded the write of `id`.
            unsafe { fetch_mut::<Self, M>(id, meta, world, change_tick, "MessageMutator") }?
        };
        Ok(MessageMutator {
            // SAFETY: the cursor is this parameter's own state.
            reader: unsafe { Local::get_param(cursor, meta, world, change_tick) },
            messages,
        })
    }
}
