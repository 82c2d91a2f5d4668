use std::{
    any::TypeId,
    borrow::Cow,
    collections::HashMap,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use super::{Lifecycle, Observer, On};
use crate::{
    change_detection::DetectChangesMut,
    change_detection::Tick,
    component::{Component, ComponentHooks, ComponentId, HookContext, StorageType},
    entity::Entity,
    error::{ErrorContext, ErrorHandler},
    event::{EntityComponentsTrigger, EntityEvent, Event, EventPattern, EventPatternTrigger},
    lifecycle::{AddEvent, DespawnEvent, DiscardEvent, InsertEvent, RemoveEvent},
    schedule::BoxedCondition,
    storage::{SparseArray, SparseSet},
    system::{CommandQueue, IntoResult, RunSystemError, SystemMeta, SystemParam, SystemParamItem},
    utils::{DropPanics, TypeIdMap},
    world::{DeferredWorld, UnsafeWorldCell, World, WorldId},
};

/// What an observer watches.
#[derive(Debug, Clone)]
enum Watch {
    /// A lifecycle event of these components.
    Lifecycle(Lifecycle, Vec<ComponentId>),
    /// A custom event type.
    Custom(TypeId),
}

/// The registry of observers: observer entities by what they watch, and
/// each observer's system.
///
/// The systems live here, not in a component, so that no safe access to
/// the observer entity (swapping, taking or moving its [`ObserverState`])
/// can pair a system with another observer's registration.
#[derive(Default)]
pub(crate) struct Observers {
    lifecycle: [SparseArray<ComponentId, Vec<Entity>>; 5],
    custom: TypeIdMap<CustomObservers>,
    /// By entity index; the entry names its entity (with its generation).
    entries: SparseSet<u32, ObserverEntry>,
    /// The id of the last dispatch: an observer listed under several
    /// components of one dispatch runs once.
    last_dispatch: u64,
}

impl std::fmt::Debug for Observers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observers")
            .field("observers", &self.entries.values())
            .finish()
    }
}

/// The observers of one custom event type.
#[derive(Default)]
struct CustomObservers {
    /// Those watching every trigger.
    global: Vec<Entity>,
    /// Those watching some entities, by watched entity: a trigger visits
    /// only its target's list.
    by_target: HashMap<Entity, Vec<Entity>>,
}

/// One observer: its system and what it watches.
struct ObserverEntry {
    entity: Entity,
    /// Its own error handler, if it has one (else the world's).
    error_handler: Option<ErrorHandler>,
    /// Taken out while it runs: an observer does not re-enter itself.
    system: Option<Box<dyn ObserverSystem>>,
    /// Its run conditions, initialised; taken out with the system.
    conditions: Vec<BoxedCondition>,
    watch: Watch,
    /// Only events targeting one of these entities (all, when empty).
    entities: Vec<Entity>,
    /// The dispatch it last ran (or was skipped) in.
    last_dispatch: u64,
}

impl CustomObservers {
    /// Takes `observer` off `target`'s list.
    fn unlist(&mut self, target: Entity, observer: Entity) {
        if let Some(list) = self.by_target.get_mut(&target) {
            list.retain(|&e| e != observer);
            if list.is_empty() {
                self.by_target.remove(&target);
            }
        }
    }
}

impl std::fmt::Debug for ObserverEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("entity", &self.entity)
            .field("system", &self.system.as_ref().map(|s| s.name()))
            .field("watch", &self.watch)
            .field("entities", &self.entities)
            .finish()
    }
}

impl Observers {
    /// Whether any observer watches the custom event `E` globally.
    pub(crate) fn watches_globally<E: 'static>(&self) -> bool {
        self.custom
            .get(&TypeId::of::<E>())
            .is_some_and(|lists| !lists.global.is_empty())
    }

    /// A fresh dispatch id.
    fn next_dispatch(&mut self) -> u64 {
        self.last_dispatch += 1;
        self.last_dispatch
    }

    fn entry_mut(&mut self, observer: Entity) -> Option<&mut ObserverEntry> {
        self.entries
            .get_mut(observer.index())
            .filter(|entry| entry.entity == observer)
    }

    /// Lists `entry` under what it watches.
    fn register(&mut self, entry: ObserverEntry) {
        let observer = entry.entity;
        match &entry.watch {
            Watch::Lifecycle(kind, components) => {
                let table = &mut self.lifecycle[kind.index()];
                for &id in components {
                    match table.get_mut(id) {
                        Some(list) => list.push(observer),
                        None => table.insert(id, vec![observer]),
                    }
                }
            }
            Watch::Custom(event) => {
                let lists = self.custom.entry(*event).or_default();
                if entry.entities.is_empty() {
                    lists.global.push(observer);
                }
                for &target in &entry.entities {
                    lists.by_target.entry(target).or_default().push(observer);
                }
            }
        }
        self.entries.insert(observer.index(), entry);
    }

    /// Takes `observer` out of the registry.
    fn unregister(&mut self, observer: Entity) -> Option<ObserverEntry> {
        self.entry_mut(observer)?;
        let entry = self.entries.remove(observer.index())?;
        match &entry.watch {
            Watch::Lifecycle(kind, components) => {
                for &id in components {
                    if let Some(list) = self.lifecycle[kind.index()].get_mut(id) {
                        list.retain(|&e| e != observer);
                    }
                }
            }
            Watch::Custom(event) => {
                if let Some(lists) = self.custom.get_mut(event) {
                    lists.global.retain(|&e| e != observer);
                    for &target in &entry.entities {
                        lists.unlist(target, observer);
                    }
                }
            }
        }
        Some(entry)
    }

    /// Stops `observer` watching `target`; returns whether it now watches
    /// no entity (`None` if it is not registered).
    fn stop_watching(&mut self, observer: Entity, target: Entity) -> Option<bool> {
        let entry = self
            .entries
            .get_mut(observer.index())
            .filter(|entry| entry.entity == observer)?;
        entry.entities.retain(|&e| e != target);
        let watches_none = entry.entities.is_empty();
        if let Watch::Custom(event) = &entry.watch {
            if let Some(lists) = self.custom.get_mut(event) {
                lists.unlist(target, observer);
            }
        }
        Some(watches_none)
    }

    /// Empties the registry, dropping every observer's system (each once,
    /// also when one's drop panics; the first panic is kept in `panics`).
    pub(crate) fn clear(&mut self, panics: &mut DropPanics) {
        let mut entries = std::mem::take(self).entries;
        while let Some(&index) = entries.indices().last() {
            let entry = entries.remove(index).expect("listed index");
            panics.drop_owned(entry);
        }
    }
}

/// Marks an entity as an observer: despawning the entity (or removing this
/// component) unregisters the observer.
///
/// The observer's system and what it watches are kept by the world, not in
/// this value, which holds nothing: swapping it with another observer's,
/// or taking it out and inserting it elsewhere (on another entity, in
/// another world) changes no observer. Taken out of its entity, it has
/// unregistered that observer for good, and is inert wherever it goes.
#[derive(Debug)]
pub struct ObserverState {
    _private: (),
}

impl Component for ObserverState {
    const STORAGE_TYPE: StorageType = StorageType::SparseSet;
    type Mutability = crate::component::Mutable;

    fn register_component_hooks(hooks: &mut ComponentHooks) {
        hooks.on_remove(unregister_observer);
    }
}

fn unregister_observer(mut world: DeferredWorld<'_>, context: HookContext) {
    let observer = context.entity;
    // The observer registry lives outside archetypes: unregistering changes
    // no archetype, the one mutation this hook may make. A moved
    // `ObserverState` finds no entry.
    let Some(entry) = world.world_mut_internal().observers.unregister(observer) else {
        return;
    };
    // Its targets stop listing it (a target despawned meanwhile has no
    // `ObservedBy` left to fix): a value change, no structural one.
    for &target in &entry.entities {
        if let Some(mut observed_by) = world.get_mut::<ObservedBy>(target) {
            let list = &mut observed_by.bypass_change_detection().0;
            list.retain(|&e| e != observer);
            if list.is_empty() {
                // Removing the component is structural: queued, and only
                // if no observer started watching the target meanwhile.
                world.commands().queue(move |world: &mut World| {
                    if let Ok(mut target) = world.get_entity_mut(target) {
                        if target.get::<ObservedBy>().is_some_and(|o| o.0.is_empty()) {
                            target.remove::<ObservedBy>();
                        }
                    }
                });
            }
        }
    }
    // The system (a user value) is dropped once the removal is done, so a
    // panic in its drop cannot interrupt it.
    world.commands().queue(move |_: &mut World| drop(entry));
}

/// The observers that watch this entity (added by
/// [`EntityWorldMut::observe`](crate::world::EntityWorldMut::observe) or
/// [`Observer::with_entity`]). When the entity is despawned, or this
/// component removed, those observers stop watching it, and each left
/// watching no entity is despawned. An observer despawned on its own is
/// taken off the list, and the component is removed once no observer is
/// left on it.
#[derive(Debug, Default)]
pub struct ObservedBy(Vec<Entity>);

impl ObservedBy {
    /// The observer entities.
    pub fn get(&self) -> &[Entity] {
        &self.0
    }
}

impl Component for ObservedBy {
    const STORAGE_TYPE: StorageType = StorageType::SparseSet;
    type Mutability = crate::component::Mutable;

    fn register_component_hooks(hooks: &mut ComponentHooks) {
        hooks.on_remove(release_entity_observers);
    }
}

fn release_entity_observers(mut world: DeferredWorld<'_>, context: HookContext) {
    let target = context.entity;
    let Some(observed_by) = world.get::<ObservedBy>(target) else {
        return;
    };
    let observers = observed_by.0.clone();
    world.commands().queue(move |world: &mut World| {
        for observer in observers {
            // `None`: despawned already.
            if world.observers.stop_watching(observer, target) == Some(true) {
                world.despawn(observer);
            }
        }
    });
}

/// A type-erased observer system.
pub(super) trait ObserverSystem: Send + Sync + 'static {
    fn name(&self) -> Cow<'static, str>;

    /// Runs the system for the event at `event`, of type `event.kind`.
    ///
    /// # Panics
    /// If `event.kind` is not the event type the observer watches.
    ///
    /// # Safety
    /// `event` is valid (see [`ErasedEvent`]); the world is the one the
    /// observer was initialised with and nothing else accesses it
    /// meanwhile.
    unsafe fn run(
        &mut self,
        world: UnsafeWorldCell<'_>,
        event: &ErasedEvent,
        observer: Entity,
    ) -> Result<(), RunSystemError>;

    fn queue_deferred(&mut self, queue: &mut CommandQueue);

    /// The tick the observer last ran at.
    fn last_run(&self) -> Tick;
}

/// An event and its trigger, type-erased for the observer systems.
///
/// Valid when `event` points to a live value of type `kind` (an [`Event`])
/// and `trigger` to a live value of that event's [`Event::Trigger`] type,
/// both exclusive to the dispatch that built it.
pub(crate) struct ErasedEvent {
    event: *mut u8,
    trigger: *mut u8,
    kind: TypeId,
}

impl ErasedEvent {
    fn new<'a, E: Event>(event: &'a mut E, trigger: &'a mut E::Trigger<'_>) -> Self {
        ErasedEvent {
            event: (event as *mut E).cast(),
            trigger: (trigger as *mut E::Trigger<'_>).cast(),
            kind: TypeId::of::<E>(),
        }
    }
}

/// A function usable as an observer: its first parameter is `On<P>`, the
/// others are system parameters. It returns `()` or a
/// [`Result`](crate::error::Result), whose error goes to the world's error
/// handler.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid observer",
    label = "not an observer",
    note = "an observer's first parameter is `On<P>` (`On<MyEvent>`, `On<Add<Player>>`) and the rest are system parameters (`Query`, `Res`, `ResMut`, `Commands`, ...)"
)]
pub trait ObserverFunction<P: EventPattern, Marker>: Send + Sync + 'static {
    /// The other parameters.
    type Param: SystemParam;
    /// Calls the function; returns its error, if it failed.
    fn run(
        &mut self,
        on: On<'_, '_, P>,
        param: SystemParamItem<'_, '_, Self::Param>,
    ) -> Result<(), RunSystemError>;
}

macro_rules! impl_observer_function {
    ($(($param:ident, $s:ident)),*) => {
        #[allow(non_snake_case)]
        impl<P: EventPattern, Out: IntoResult<()>, Func, $($param: SystemParam),*> ObserverFunction<P, fn($($param,)*) -> Out> for Func
        where
            Func: Send + Sync + 'static,
            for<'a> &'a mut Func: FnMut(On<P>, $($param),*) -> Out + FnMut(On<P>, $(SystemParamItem<$param>),*) -> Out,
        {
            type Param = ($($param,)*);

            #[inline]
            fn run(&mut self, on: On<'_, '_, P>, param: SystemParamItem<'_, '_, ($($param,)*)>) -> Result<(), RunSystemError> {
                #[allow(clippy::too_many_arguments)]
                fn call_inner<P: EventPattern, Out, $($param),*>(mut f: impl FnMut(On<P>, $($param),*) -> Out, on: On<P>, $($param: $param),*) -> Out {
                    f(on, $($param),*)
                }
                let ($($param,)*) = param;
                call_inner(self, on, $($param),*).into_result()
            }
        }
    };
}

crate::utils::all_tuples!(impl_observer_function; (P0, s0), (P1, s1), (P2, s2), (P3, s3), (P4, s4), (P5, s5), (P6, s6), (P7, s7), (P8, s8), (P9, s9), (P10, s10), (P11, s11), (P12, s12), (P13, s13), (P14, s14));

/// Keeps a function observer's type parameters without owning them.
type ObserverMarker<P, M> = fn() -> (P, M);

struct FunctionObserver<P: EventPattern, Marker, F: ObserverFunction<P, Marker>> {
    func: F,
    state: <F::Param as SystemParam>::State,
    meta: SystemMeta,
    /// The world whose ids `state` holds.
    world_id: WorldId,
    marker: std::marker::PhantomData<ObserverMarker<P, Marker>>,
}

impl<P: EventPattern, Marker: 'static, F: ObserverFunction<P, Marker>> ObserverSystem
    for FunctionObserver<P, Marker, F>
{
    fn name(&self) -> Cow<'static, str> {
        self.meta.name.clone()
    }

    unsafe fn run(
        &mut self,
        world: UnsafeWorldCell<'_>,
        event: &ErasedEvent,
        observer: Entity,
    ) -> Result<(), RunSystemError> {
        // The casts below rely on it: one compare, whatever the registry
        // says.
        if event.kind != TypeId::of::<P::Event>() {
            wrong_event_type(&self.meta.name, std::any::type_name::<P::Event>(), observer);
        }
        // The params' state holds ids (of resources, components) of the
        // world it was built for.
        if world.id() != self.world_id {
            wrong_world(&self.meta.name, self.world_id, observer);
        }
        let change_tick = world.increment_change_tick();
        let this_run = self.meta.begin_run(world, change_tick);
        // SAFETY: `event.event` points to a live, unaliased value of type
        // `event.kind` (the caller's guarantee), which is `P::Event`
        // (checked above), and `event.trigger` to one of its trigger type.
        // The trigger's lifetime is shortened to this call: both trigger
        // types are covariant in it, and `On` hands out no reference
        // outliving the call. The caller guarantees exclusive world access
        // (observers run one at a time, from `&mut World`).
        let result = unsafe {
            // A parameter that fails validation skips the observer, leaving
            // its last run where it was.
            let params = F::Param::try_get_param(&mut self.state, &self.meta, world, change_tick)
                .map_err(RunSystemError::from)?;
            let trigger = &mut *event.trigger.cast::<EventPatternTrigger<'_, P>>();
            let on = On::new(&mut *event.event.cast::<P::Event>(), trigger, observer);
            self.func.run(on, params)
        };
        self.meta.finish_run(this_run);
        result
    }

    fn queue_deferred(&mut self, queue: &mut CommandQueue) {
        F::Param::queue(&mut self.state, queue);
    }

    fn last_run(&self) -> Tick {
        self.meta.last_run()
    }
}

#[cold]
#[track_caller]
fn wrong_event_type(name: &str, event: &str, observer: Entity) -> ! {
    panic!(
        "observer `{name}` (entity {observer}) watches `{event}` and was run for another event type: \
         the registry listed it under the wrong event"
    )
}

#[cold]
#[inline(never)]
fn wrong_world(name: &str, built_for: WorldId, observer: Entity) -> ! {
    panic!(
        "observer `{name}` (entity {observer}) was built for world {built_for:?} and run in another: \
         the registry holds another world's observer"
    )
}

/// Builds the system of the observer function `function` for `world`.
pub(super) fn build_system<P: EventPattern, M: 'static, F: ObserverFunction<P, M>>(
    function: F,
    world: &mut World,
) -> Box<dyn ObserverSystem> {
    let mut meta = SystemMeta::new(Cow::Borrowed(std::any::type_name::<F>()));
    meta.set_never_run(world);
    let state = crate::system::param::build_in_place(world, std::any::type_name::<F>(), |world| {
        F::Param::init_state(world, &mut meta)
    });
    Box::new(FunctionObserver::<P, M, F> {
        func: function,
        state,
        meta,
        world_id: world.id(),
        marker: std::marker::PhantomData,
    })
}

/// What `observer` watches: its pattern's event and components, plus its
/// descriptor's.
fn watch_of(
    name: &str,
    event: TypeId,
    (pattern, event_name): (&str, &str),
    mut components: Vec<ComponentId>,
) -> Watch {
    components.sort_unstable();
    components.dedup();
    match Lifecycle::of_event(event) {
        Some(kind) => {
            assert!(
                !components.is_empty(),
                "observer `{name}` watches a lifecycle event of no component (`{pattern}`): name the \
                 components, as in `On<Add<Player>>`, or add them with `Observer::with_component`",
            );
            Watch::Lifecycle(kind, components)
        }
        None => {
            assert!(
                components.is_empty(),
                "observer `{name}` watches the pattern `{pattern}` of the event `{event_name}`, which \
                 names components, or was given some with `Observer::with_component`: only the \
                 lifecycle patterns (`Add`, \
                 `Insert`, `Discard`, `Remove`, `Despawn`) concern components",
            );
            Watch::Custom(event)
        }
    }
}

/// Registers `observer` on `entity` (a new entity when `None`) and returns
/// that entity.
///
/// # Panics
/// If the observer watches an entity that does not exist, `entity` is an
/// observer already, its pattern and components disagree (see
/// [`watch_of`]), or its parameters conflict; nothing is registered then.
#[track_caller]
pub(super) fn register_observer(
    world: &mut World,
    observer: Observer,
    entity: Option<Entity>,
) -> Entity {
    let (pending, descriptor, error_handler, mut conditions) = observer.into_parts();
    let (extra_components, mut entities) = descriptor.into_parts();
    let name = pending.name();
    let (event, mut components) = pending.pattern(world);
    components.extend(extra_components);
    let pattern = pending.pattern_name();
    let watch = watch_of(&name, event, pattern, components);
    entities.sort_unstable();
    entities.dedup();
    for &target in &entities {
        assert!(
            world.get_entity(target).is_ok(),
            "observer `{name}` watches entity {target}, which does not exist"
        );
    }
    if let Some(entity) = entity {
        assert!(
            world.get::<ObserverState>(entity).is_none(),
            "observer `{name}` was spawned on entity {entity}, which is an observer already: \
             spawn each `Observer` on an entity of its own"
        );
    }
    let system = pending.init(world);
    for condition in &mut conditions {
        condition.initialize(world);
    }
    let observer_entity = match entity {
        Some(entity) => {
            world
                .entity_mut(entity)
                .insert(ObserverState { _private: () });
            entity
        }
        None => world.spawn(ObserverState { _private: () }).id(),
    };
    let targets = entities.clone();
    world.observers.register(ObserverEntry {
        entity: observer_entity,
        error_handler,
        system: Some(system),
        conditions,
        watch: watch.clone(),
        entities,
        last_dispatch: 0,
    });
    if let Watch::Lifecycle(kind, components) = &watch {
        let (_, flag) = kind.flags();
        for &id in components {
            world.components.add_observer_flags(id, flag);
            world.archetypes.add_flags_for_component(id, flag);
        }
    }
    for target in targets {
        note_observed_by(world, target, observer_entity);
    }
    observer_entity
}

/// Lists `observer` in `target`'s [`ObservedBy`]. A target gone meanwhile
/// (despawned by a command that an earlier insert let run) is treated as
/// despawned right after registration.
fn note_observed_by(world: &mut World, target: Entity, observer: Entity) {
    let Ok(mut target_mut) = world.get_entity_mut(target) else {
        if world.observers.stop_watching(observer, target) == Some(true) {
            world.despawn(observer);
        }
        return;
    };
    match target_mut.get_mut::<ObservedBy>() {
        Some(mut observed_by) => observed_by.bypass_change_detection().0.push(observer),
        None => {
            target_mut.insert(ObservedBy(vec![observer]));
        }
    }
}

/// Runs one observer entity's system for `event`, unless it already ran
/// in `dispatch`.
fn run_observer(
    world: &mut World,
    observer: Entity,
    event: &ErasedEvent,
    target: Entity,
    dispatch: u64,
) {
    let Some(entry) = world.observers.entry_mut(observer) else {
        return;
    };
    if entry.last_dispatch == dispatch {
        return;
    }
    entry.last_dispatch = dispatch;
    if !entry.entities.is_empty() && !entry.entities.contains(&target) {
        return;
    }
    let Some(mut system) = entry.system.take() else {
        return;
    };
    let mut conditions = std::mem::take(&mut entry.conditions);
    let error_handler = entry.error_handler;
    let result = catch_unwind(AssertUnwindSafe(|| {
        if !conditions_hold(world, &mut conditions, &*system, error_handler) {
            return;
        }
        // SAFETY: the callers pass a valid `ErasedEvent` (the system checks
        // its type is its own before the casts); `&mut World` gives
        // exclusive access, and the system is this world's (the registry
        // belongs to it).
        let ran = unsafe { system.run(UnsafeWorldCell::new_mutable(world), event, observer) };
        // A handler that panics (the default) counts as the observer's
        // panic.
        if let Err(RunSystemError::Failed(error)) = ran {
            let handler = error_handler.unwrap_or_else(|| world.fallback_error_handler());
            handler(
                error,
                ErrorContext::Observer {
                    name: system.name(),
                    last_run: system.last_run(),
                },
            );
        }
    }));
    // The commands of a run that panicked are dropped, not applied.
    let mut discarded = CommandQueue::default();
    let panicked = result
        .err()
        .map(|payload| crate::utils::name_panic("observer", &system.name(), payload));
    // A parameter's `queue` may panic too; the system is put back first.
    let queued = catch_unwind(AssertUnwindSafe(|| match panicked {
        Some(_) => system.queue_deferred(&mut discarded),
        None => system.queue_deferred(world.command_queue.get_mut()),
    }));
    // Put back even after a panic: the observer stays registered.
    // Observers cannot despawn anything directly, so the entry is still
    // there.
    if let Some(entry) = world.observers.entry_mut(observer) {
        entry.system = Some(system);
        entry.conditions = conditions;
    }
    if let Some(payload) = panicked {
        // A panic in queueing or dropping those commands is second to the
        // observer's.
        let _ = catch_unwind(AssertUnwindSafe(move || drop(discarded)));
        resume_unwind(payload);
    }
    if let Err(payload) = queued {
        resume_unwind(payload);
    }
}

/// Evaluates an observer's run conditions, every one (no short-circuit,
/// as a schedule does): true when all hold. A condition skipped for its
/// parameters counts as false, one that fails also goes to the error
/// handler; a panic names the condition and propagates.
fn conditions_hold(
    world: &mut World,
    conditions: &mut [BoxedCondition],
    system: &dyn ObserverSystem,
    error_handler: Option<ErrorHandler>,
) -> bool {
    let mut all = true;
    for condition in conditions {
        let result = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the condition was initialised with this world (at
            // registration), and `&mut World` covers its read-only access.
            unsafe { condition.run_unsafe((), UnsafeWorldCell::new_mutable(world)) }
        }));
        match result {
            Ok(Ok(value)) => all &= value,
            Ok(Err(RunSystemError::Skipped(_))) => all = false,
            Ok(Err(RunSystemError::Failed(error))) => {
                all = false;
                let handler = error_handler.unwrap_or_else(|| world.fallback_error_handler());
                handler(
                    error,
                    ErrorContext::RunCondition {
                        name: condition.name(),
                        last_run: condition.last_run(),
                        system: system.name(),
                        on_set: false,
                    },
                );
            }
            Err(payload) => {
                resume_unwind(crate::utils::name_panic(
                    "run condition",
                    &condition.name(),
                    payload,
                ));
            }
        }
    }
    all
}

/// Runs the hooks and the observers of one lifecycle event for
/// `components` of `entity` (an observer of several of them runs once):
/// hooks first for `Add` and `Insert`, observers first for `Discard`,
/// `Remove` and `Despawn`, as bevy does, so observers of a removal see
/// what the hooks are about to undo (a parent's `Children` listing the
/// child).
///
/// A hook or observer that panics stops neither the others nor the
/// operation that fired them: its panic goes into `panics`, which the
/// operation re-raises once it is whole.
pub(crate) fn trigger_lifecycle(
    world: &mut World,
    kind: Lifecycle,
    entity: Entity,
    components: &[ComponentId],
    panics: &mut DropPanics,
) {
    match kind {
        Lifecycle::Add | Lifecycle::Insert => {
            lifecycle_hooks(world, kind, entity, components, panics);
            observers_of_lifecycle(world, kind, entity, components, panics);
        }
        Lifecycle::Discard | Lifecycle::Remove | Lifecycle::Despawn => {
            observers_of_lifecycle(world, kind, entity, components, panics);
            lifecycle_hooks(world, kind, entity, components, panics);
        }
    }
}

/// Runs each of `components`' hook for the lifecycle event `kind`.
pub(crate) fn lifecycle_hooks(
    world: &mut World,
    kind: Lifecycle,
    entity: Entity,
    components: &[ComponentId],
    panics: &mut DropPanics,
) {
    for &id in components {
        let hooks = world.components.get_info(id).expect("registered").hooks();
        let hook = match kind {
            Lifecycle::Add => hooks.on_add,
            Lifecycle::Insert => hooks.on_insert,
            Lifecycle::Discard => hooks.on_discard,
            Lifecycle::Remove => hooks.on_remove,
            Lifecycle::Despawn => hooks.on_despawn,
        };
        if let Some(hook) = hook {
            let context = HookContext {
                entity,
                component_id: id,
            };
            panics.catch(|| hook(DeferredWorld::new(world), context));
        }
    }
}

/// Runs the observers of the lifecycle event `kind` for `components`.
pub(crate) fn observers_of_lifecycle(
    world: &mut World,
    kind: Lifecycle,
    entity: Entity,
    components: &[ComponentId],
    panics: &mut DropPanics,
) {
    let mut trigger = EntityComponentsTrigger { components };
    let trigger = &mut trigger;
    match kind {
        Lifecycle::Add => {
            lifecycle_observers(world, kind, &mut AddEvent { entity }, trigger, panics)
        }
        Lifecycle::Insert => {
            lifecycle_observers(world, kind, &mut InsertEvent { entity }, trigger, panics)
        }
        Lifecycle::Discard => {
            lifecycle_observers(world, kind, &mut DiscardEvent { entity }, trigger, panics)
        }
        Lifecycle::Remove => {
            lifecycle_observers(world, kind, &mut RemoveEvent { entity }, trigger, panics)
        }
        Lifecycle::Despawn => {
            lifecycle_observers(world, kind, &mut DespawnEvent { entity }, trigger, panics)
        }
    }
}

/// Runs the observers of each of the trigger's components, in order, for
/// the lifecycle event `event` of kind `kind`; a panic of one goes into
/// `panics` and the others still run.
fn lifecycle_observers<'a, E>(
    world: &mut World,
    kind: Lifecycle,
    event: &mut E,
    trigger: &mut EntityComponentsTrigger<'a>,
    panics: &mut DropPanics,
) where
    E: EntityEvent + Event<Trigger<'a> = EntityComponentsTrigger<'a>>,
{
    // Read once: observers may change the trigger and the event, not who
    // runs next.
    let components = trigger.components;
    let entity = event.event_target();
    let mut dispatch = None;
    for &id in components {
        let Some(list) = world.observers.lifecycle[kind.index()].get(id) else {
            continue;
        };
        if list.is_empty() {
            continue;
        }
        let list = list.clone();
        let dispatch = *dispatch.get_or_insert_with(|| world.observers.next_dispatch());
        let erased = ErasedEvent::new(event, trigger);
        for observer in list {
            panics.catch(|| run_observer(world, observer, &erased, entity, dispatch));
        }
    }
}

macro_rules! lifecycle_entity_event {
    ($($event:ident),*) => {$(
        /// The target is the entity whose component changed.
        impl EntityEvent for $event {
            #[inline]
            fn event_target(&self) -> Entity {
                self.entity
            }
        }
    )*};
}

lifecycle_entity_event!(
    AddEvent,
    InsertEvent,
    DiscardEvent,
    RemoveEvent,
    DespawnEvent
);

/// Runs the global observers of the custom event `E`.
pub(crate) fn run_global_observers<E: Event>(
    world: &mut World,
    event: &mut E,
    trigger: &mut E::Trigger<'_>,
) {
    let Some(lists) = world.observers.custom.get(&TypeId::of::<E>()) else {
        return;
    };
    if lists.global.is_empty() {
        return;
    }
    let list = lists.global.clone();
    let dispatch = world.observers.next_dispatch();
    let erased = ErasedEvent::new(event, trigger);
    for observer in list {
        run_observer(world, observer, &erased, Entity::PLACEHOLDER, dispatch);
    }
}

/// Runs the global observers of the custom event `E`, then those watching
/// `target` (one dispatch: an observer in both lists runs once).
pub(crate) fn run_entity_observers<E: Event>(
    world: &mut World,
    event: &mut E,
    trigger: &mut E::Trigger<'_>,
    target: Entity,
) {
    let Some(lists) = world.observers.custom.get(&TypeId::of::<E>()) else {
        return;
    };
    let watching = lists.by_target.get(&target);
    if lists.global.is_empty() && watching.is_none() {
        return;
    }
    // Copied: observers may add or despawn observers while these run.
    let mut list = lists.global.clone();
    list.extend(watching.into_iter().flatten().copied());
    let dispatch = world.observers.next_dispatch();
    let erased = ErasedEvent::new(event, trigger);
    for observer in list {
        run_observer(world, observer, &erased, target, dispatch);
    }
}

/// Runs the observers of a lifecycle event fired by hand, or of a custom
/// event using the lifecycle trigger (its components concern no observer).
pub(crate) fn run_lifecycle_or_entity_observers<'a, E>(
    world: &mut World,
    event: &mut E,
    trigger: &mut EntityComponentsTrigger<'a>,
) where
    E: EntityEvent + Event<Trigger<'a> = EntityComponentsTrigger<'a>>,
{
    match Lifecycle::of_event(TypeId::of::<E>()) {
        Some(kind) => {
            let mut panics = DropPanics::default();
            lifecycle_observers(world, kind, event, trigger, &mut panics);
            panics.finish();
        }
        None => {
            let target = event.event_target();
            run_entity_observers(world, event, trigger, target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(crate::event::Event)]
    struct Wide(#[allow(dead_code)] [u64; 8]);

    #[test]
    #[should_panic(expected = "was run for another event type")]
    fn an_observer_run_for_another_event_type_panics_before_the_cast() {
        let mut world = World::new();
        let mut system = build_system::<Wide, _, _>(|_: On<Wide>| {}, &mut world);
        let mut narrow = 7u8;
        let mut trigger = crate::event::GlobalTrigger;
        let erased = ErasedEvent {
            event: &mut narrow,
            trigger: (&mut trigger as *mut crate::event::GlobalTrigger).cast(),
            kind: TypeId::of::<u8>(),
        };
        // SAFETY: `erased` points to a live `u8`, as its kind says; the
        // world is the system's and no one else's. The system refuses it.
        unsafe {
            let _ = system.run(
                UnsafeWorldCell::new_mutable(&mut world),
                &erased,
                Entity::PLACEHOLDER,
            );
        }
    }
}
