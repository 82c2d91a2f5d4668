//! Cloning entities: copying some or all components of one entity onto
//! another (or a new one), optionally moving them, and cloning the
//! entities linked to it.
//!
//! ```text
//! EntityCloner::build_opt_out(world)   every component but the denied ones
//! EntityCloner::build_opt_in(world)    only the allowed ones (and what they require)
//!        │  .linked_cloning(true)      also clone Children (linked_spawn targets), iteratively
//!        │  .move_components(true)     take the values off the source instead
//!        ▼
//! per source entity:  filter ─▶ clone fn per component ─▶ scratch ─▶ one insert on the target
//! ```
//!
//! Each component is cloned by its [`ComponentCloneBehavior`]: nothing is
//! written to the world until every clone of the entity is made, so a
//! `Clone` that panics midway leaves both entities as they were and drops
//! the clones already made. An entity spawned for a clone
//! ([`EntityCloner::spawn_clone`], `clone_and_spawn`, the children of a
//! linked clone) is despawned if the panic comes before anything is
//! written to it; entities cloned whole before the panic stay.

use std::{
    alloc::Layout,
    any::{type_name, TypeId},
    collections::VecDeque,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
    ptr::NonNull,
};

use hashbrown::{HashMap, HashSet};

use super::{Entities, Entity, EntityHashMap, EntityMapper};
use crate::{
    bundle::{Bundle, BundleId, ComponentSink, DynamicBundle, InsertMode},
    component::{
        Component, ComponentCloneBehavior, ComponentCloneFn, ComponentId, ComponentInfo,
        StorageType,
    },
    ptr::Ptr,
    relationship::{Relationship, RelationshipTarget},
    utils::DropPanics,
    world::World,
};

/// The source entity's value of the component being cloned.
pub struct SourceComponent<'a> {
    ptr: Ptr<'a>,
    info: &'a ComponentInfo,
}

impl<'a> SourceComponent<'a> {
    /// The value as a `C`, or `None` if the component is not a `C`.
    pub fn read<C: Component>(&self) -> Option<&C> {
        if self.info.type_id() == Some(TypeId::of::<C>()) {
            // SAFETY: the value is of the component `info` describes, whose
            // Rust type was just checked to be `C`.
            Some(unsafe { self.ptr.deref::<C>() })
        } else {
            None
        }
    }

    /// A pointer to the value.
    pub fn ptr(&self) -> Ptr<'a> {
        self.ptr
    }

    /// The component's id.
    pub fn id(&self) -> ComponentId {
        self.info.id()
    }
}

/// What a [`ComponentCloneFn`] writes the clone through, and what it may
/// ask about the clone in progress.
pub struct ComponentCloneCtx<'a, 'b> {
    component_id: ComponentId,
    source: Entity,
    target: Entity,
    target_component_written: bool,
    target_component_moved: bool,
    scratch: &'a mut CloneScratch,
    entities: &'a Entities,
    component_info: &'a ComponentInfo,
    state: &'a mut EntityClonerState,
    mapper: &'a mut dyn EntityMapper,
    marker: std::marker::PhantomData<&'b ()>,
}

impl ComponentCloneCtx<'_, '_> {
    /// Whether the clone was written already.
    pub fn target_component_written(&self) -> bool {
        self.target_component_written
    }

    /// Whether the cloner moves components (takes them off the source).
    pub fn moving(&self) -> bool {
        self.state.move_components
    }

    /// The entity being cloned.
    pub fn source(&self) -> Entity {
        self.source
    }

    /// The entity receiving the clone.
    pub fn target(&self) -> Entity {
        self.target
    }

    /// The id of the component being cloned.
    pub fn component_id(&self) -> ComponentId {
        self.component_id
    }

    /// The info of the component being cloned.
    pub fn component_info(&self) -> &ComponentInfo {
        self.component_info
    }

    /// Whether the cloner also clones the sources of `linked_spawn`
    /// relationship targets (a hierarchy's children).
    pub fn linked_cloning(&self) -> bool {
        self.state.linked_cloning
    }

    /// The mapper from source entities to their clones.
    pub fn entity_mapper(&mut self) -> &mut dyn EntityMapper {
        self.mapper
    }

    /// Writes `component` as the clone, after mapping the entities it holds
    /// ([`Component::map_entities`]).
    ///
    /// # Panics
    /// If the clone was written already, or `C` is not the component being
    /// cloned; the message names both.
    #[track_caller]
    pub fn write_target_component<C: Component>(&mut self, mut component: C) {
        if self.target_component_written {
            panic!(
                "the clone of component `{}` was written twice",
                type_name::<C>()
            );
        }
        if self.component_info.type_id() != Some(TypeId::of::<C>()) {
            panic!(
                "a clone of `{}` was written for component `{}`",
                type_name::<C>(),
                self.component_info.name()
            );
        }
        C::map_entities(&mut component, &mut self.mapper);
        let ptr = alloc_value(Layout::new::<C>());
        // SAFETY: `ptr` was just allocated with `C`'s layout.
        unsafe { ptr.cast::<C>().as_ptr().write(component) };
        // SAFETY: `ptr` holds an owned value of the component being cloned
        // (its type was checked above).
        unsafe { self.scratch.push(self.component_info, ptr) };
        self.target_component_written = true;
    }

    /// Writes a bitwise copy of the value at `ptr` as the clone.
    ///
    /// # Safety
    /// `ptr` points to a valid value of the component being cloned, and the
    /// clone may own that copy (the type is `Copy`-like, or the original is
    /// forgotten).
    ///
    /// # Panics
    /// If the clone was written already.
    #[track_caller]
    pub unsafe fn write_target_component_ptr(&mut self, ptr: Ptr) {
        if self.target_component_written {
            panic!(
                "the clone of component `{}` was written twice",
                self.component_info.name()
            );
        }
        let layout = self.component_info.layout();
        let target = alloc_value(layout);
        // SAFETY: `ptr` is a valid value of this layout (caller); `target`
        // was just allocated with it, so they do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(ptr.as_ptr(), target.as_ptr(), layout.size()) };
        // SAFETY: `target` now holds an owned value of the component
        // (caller).
        unsafe { self.scratch.push(self.component_info, target) };
        self.target_component_written = true;
    }

    /// Clones `entity` too, into a new entity: the mapper maps `entity` to
    /// it, so components cloned later point at the clone.
    pub fn queue_entity_clone(&mut self, entity: Entity) {
        let target = self.entities.reserve_entity();
        self.mapper.set_mapped(entity, target);
        self.state.clone_queue.push_back(entity);
        self.state.reserved.push(target);
    }

    /// Runs `deferred` with the whole world once every component of this
    /// entity has been offered to its clone function, before the clones
    /// are inserted.
    pub fn queue_deferred(
        &mut self,
        deferred: impl FnOnce(&mut World, &mut dyn EntityMapper) + 'static,
    ) {
        self.state.deferred_commands.push_back(Box::new(deferred));
    }

    /// Marks the component as moved: its bytes are taken off the source.
    fn move_component(&mut self) {
        self.target_component_moved = true;
        self.target_component_written = true;
    }
}

/// Memory for one value of `layout` (dangling but aligned when it is
/// zero-sized).
fn alloc_value(layout: Layout) -> NonNull<u8> {
    if layout.size() == 0 {
        // A zero-sized value needs only an aligned, non-null address.
        return NonNull::new(std::ptr::without_provenance_mut(layout.align()))
            .expect("alignment is never zero");
    }
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc(layout) };
    NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
}

/// One clone waiting to be inserted.
struct ClonedValue {
    id: ComponentId,
    storage_type: StorageType,
    ptr: NonNull<u8>,
    layout: Layout,
    drop: Option<unsafe fn(*mut u8)>,
}

/// The clones of one entity's components, owned until they are inserted:
/// dropping the scratch drops the values it still owns and frees their
/// memory.
///
/// Invariant: each `ptr` was allocated by [`alloc_value`] with its
/// `layout`, and holds an owned, valid value of `id` until `disowned` is set.
#[derive(Default)]
pub(crate) struct CloneScratch {
    values: Vec<ClonedValue>,
    /// Cleared once the values have moved into the world.
    disowned: bool,
}

impl CloneScratch {
    /// Takes ownership of the value at `ptr`.
    ///
    /// # Safety
    /// `ptr` was allocated by [`alloc_value`] with `info`'s layout and holds
    /// an owned, valid value of `info`'s component.
    unsafe fn push(&mut self, info: &ComponentInfo, ptr: NonNull<u8>) {
        self.values.push(ClonedValue {
            id: info.id(),
            storage_type: info.storage_type(),
            ptr,
            layout: info.layout(),
            drop: info.drop_fn(),
        });
    }

    /// Takes ownership of a bitwise copy of the value at `value`.
    ///
    /// # Safety
    /// `value` points to a valid value of `info`'s component whose original
    /// is forgotten by the caller.
    pub(crate) unsafe fn push_copy(&mut self, info: &ComponentInfo, value: *mut u8) {
        let layout = info.layout();
        let ptr = alloc_value(layout);
        // SAFETY: `value` is valid for `layout` (caller); `ptr` was just
        // allocated with it.
        unsafe { std::ptr::copy_nonoverlapping(value, ptr.as_ptr(), layout.size()) };
        // SAFETY: `ptr` now owns the value (the caller forgets the original).
        unsafe { self.push(info, ptr) };
    }

    /// The ids of the values, in order.
    pub(crate) fn ids(&self) -> Vec<ComponentId> {
        self.values.iter().map(|v| v.id).collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl Drop for CloneScratch {
    fn drop(&mut self) {
        let mut panics = DropPanics::default();
        for value in &self.values {
            if let (false, Some(drop)) = (self.disowned, value.drop) {
                // SAFETY: the scratch still owns the value (invariant).
                unsafe { panics.drop_value(drop, value.ptr.as_ptr()) };
            }
            if value.layout.size() != 0 {
                // SAFETY: allocated by `alloc_value` with this layout.
                unsafe { std::alloc::dealloc(value.ptr.as_ptr(), value.layout) };
            }
        }
        if !std::thread::panicking() {
            panics.finish();
        }
    }
}

/// The scratch's values as a bundle, handed out by pointer.
pub(crate) struct ScratchBundle<'s>(&'s mut CloneScratch);

impl DynamicBundle for ScratchBundle<'_> {
    fn get_components(self, sink: &mut impl ComponentSink) {
        // Ownership moves to the sink, whatever happens next.
        self.0.disowned = true;
        for value in &self.0.values {
            // SAFETY: the scratch owned the value (invariant) and gives it
            // up above; the bundle's ids are the scratch's, in this order.
            unsafe { sink.put_ptr(value.storage_type, value.ptr.as_ptr()) };
        }
    }
}

impl<'s> ScratchBundle<'s> {
    /// The bundle of the scratch's values.
    ///
    /// # Safety
    /// The bundle is inserted with the ids of [`CloneScratch::ids`], into
    /// the world the values' components belong to.
    pub(crate) unsafe fn new(scratch: &'s mut CloneScratch) -> Self {
        ScratchBundle(scratch)
    }
}

/// A configured cloner: see [`EntityCloner::build_opt_out`] and
/// [`EntityCloner::build_opt_in`].
///
/// ```
/// use ecs::prelude::*;
/// use ecs::entity::EntityCloner;
///
/// #[derive(Component, Clone, PartialEq, Debug)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let source = world.spawn(Health(3)).id();
/// let target = world.spawn_empty().id();
/// EntityCloner::build_opt_out(&mut world).clone_entity(source, target);
/// assert_eq!(world.get::<Health>(target), Some(&Health(3)));
/// ```
///
/// # Clone behaviors
/// A component is cloned by, in order of precedence: an override given to
/// the builder ([`EntityClonerBuilder::override_clone_behavior`]), the
/// component's own [`Component::clone_behavior`], and the builder's
/// default function ([`EntityClonerBuilder::with_default_clone_fn`]),
/// which skips the component unless set. `#[derive(Component)]` on a
/// `Clone` type clones through `Clone`; any other component is skipped
/// (bevy falls back to reflection, which this crate does not have).
///
/// # Moving
/// With [`EntityClonerBuilder::move_components`], components are taken
/// off the source: those with the default behavior are moved bitwise,
/// those with a custom one are cloned and the original is dropped, and
/// ignored ones stay. Hooks and observers run as for a remove and an
/// insert.
#[derive(Default)]
pub struct EntityCloner {
    filter: EntityClonerFilter,
    state: EntityClonerState,
}

/// The settings and work queues of a cloner.
struct EntityClonerState {
    clone_behavior_overrides: HashMap<ComponentId, ComponentCloneBehavior>,
    move_components: bool,
    linked_cloning: bool,
    default_clone_fn: ComponentCloneFn,
    clone_queue: VecDeque<Entity>,
    deferred_commands: VecDeque<DeferredClone>,
    /// The entities reserved for linked clones by the clone under way:
    /// despawned if it panics, so no half-made clone stays.
    reserved: Vec<Entity>,
}

/// Work a clone function left for after the entity's components.
type DeferredClone = Box<dyn FnOnce(&mut World, &mut dyn EntityMapper)>;

impl Default for EntityClonerState {
    fn default() -> Self {
        Self {
            clone_behavior_overrides: HashMap::default(),
            move_components: false,
            linked_cloning: false,
            default_clone_fn: ComponentCloneBehavior::global_default_fn(),
            clone_queue: VecDeque::new(),
            deferred_commands: VecDeque::new(),
            reserved: Vec::new(),
        }
    }
}

impl EntityCloner {
    /// A builder cloning every component except those denied
    /// ([`EntityClonerBuilder::deny`]).
    pub fn build_opt_out(world: &mut World) -> EntityClonerBuilder<'_, OptOut> {
        EntityClonerBuilder {
            world,
            filter: OptOut::default(),
            state: EntityClonerState::default(),
        }
    }

    /// A builder cloning only the components allowed
    /// ([`EntityClonerBuilder::allow`]), and the components those require
    /// when the target lacks them.
    pub fn build_opt_in(world: &mut World) -> EntityClonerBuilder<'_, OptIn> {
        EntityClonerBuilder {
            world,
            filter: OptIn::default(),
            state: EntityClonerState::default(),
        }
    }

    /// Whether the sources of `linked_spawn` relationship targets (a
    /// hierarchy's children) are cloned too.
    pub fn linked_cloning(&self) -> bool {
        self.state.linked_cloning
    }

    /// Clones `source`'s components onto `target`.
    ///
    /// # Panics
    /// If `source` or `target` does not exist; the message names it.
    #[track_caller]
    pub fn clone_entity(&mut self, world: &mut World, source: Entity, target: Entity) {
        let mut map = EntityHashMap::<Entity>::default();
        map.set_mapped(source, target);
        self.clone_entity_mapped(world, source, &mut map);
    }

    /// Clones `source` into a new entity, returned.
    ///
    /// # Panics
    /// If `source` does not exist; the message names it.
    #[track_caller]
    pub fn spawn_clone(&mut self, world: &mut World, source: Entity) -> Entity {
        spawn_for_clone(world, |world, target| {
            self.clone_entity(world, source, target);
        })
    }

    /// Clones `source` onto the entity `mapper` maps it to (and linked
    /// entities onto the entities it maps them to), returning that entity.
    ///
    /// # Panics
    /// If `source` or its mapped target does not exist.
    #[track_caller]
    pub fn clone_entity_mapped(
        &mut self,
        world: &mut World,
        source: Entity,
        mapper: &mut dyn EntityMapper,
    ) -> Entity {
        clone_entity_tree(&mut self.state, &mut self.filter, world, source, mapper)
    }
}

/// Clones `source`, then every entity queued for linked cloning, one at a
/// time from a queue (no recursion, so any depth is fine).
#[track_caller]
fn clone_entity_tree(
    state: &mut EntityClonerState,
    filter: &mut impl CloneByFilter,
    world: &mut World,
    source: Entity,
    mapper: &mut dyn EntityMapper,
) -> Entity {
    state.clone_queue.clear();
    state.deferred_commands.clear();
    state.reserved.clear();
    let cloned = catch_unwind(AssertUnwindSafe(|| {
        let target = clone_one(state, filter, world, source, mapper);
        while let Some(queued) = state.clone_queue.pop_front() {
            clone_one(state, filter, world, queued, mapper);
        }
        target
    }));
    match cloned {
        Ok(target) => {
            state.reserved.clear();
            target
        }
        Err(panic) => {
            // The linked clones not made (the one whose `Clone` panicked,
            // those not reached) go rather than stay as empty entities.
            state.clone_queue.clear();
            state.deferred_commands.clear();
            despawn_unwritten(world, state.reserved.drain(..));
            resume_unwind(panic)
        }
    }
}

/// Spawns an empty entity, and runs `clone` to clone onto it; if that
/// panics before anything is written to the entity, it is despawned
/// before the panic goes on. (A panic after, from a hook or an observer
/// of the insert, leaves the clone made.)
#[track_caller]
pub(crate) fn spawn_for_clone(world: &mut World, clone: impl FnOnce(&mut World, Entity)) -> Entity {
    let target = world.spawn_empty().id();
    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| clone(world, target))) {
        despawn_unwritten(world, [target]);
        resume_unwind(panic);
    }
    target
}

/// Despawns those of `entities` that hold no component (those reserved
/// are spawned first), each past any panic of hooks or observers: the
/// caller re-raises the panic that got here.
fn despawn_unwritten(world: &mut World, entities: impl IntoIterator<Item = Entity>) {
    let mut ignored = DropPanics::default();
    ignored.catch(|| world.flush());
    for entity in entities {
        let unwritten = world
            .get_entity(entity)
            .is_ok_and(|entity| entity.archetype().component_count() == 0);
        if unwritten {
            ignored.catch(|| {
                let _ = world.try_despawn(entity);
            });
        }
    }
    ignored.catch(|| world.flush());
}

/// What cloning one entity's components left to do on the world.
struct ClonedComponents {
    scratch: CloneScratch,
    /// Default-behavior components to take off the source bitwise.
    moved: Vec<ComponentId>,
    /// Components cloned by a deferred command: removed from the source
    /// when moving.
    deferred: Vec<ComponentId>,
}

/// Clones `source` onto the entity `mapper` maps it to.
#[track_caller]
fn clone_one(
    state: &mut EntityClonerState,
    filter: &mut impl CloneByFilter,
    world: &mut World,
    source: Entity,
    mapper: &mut dyn EntityMapper,
) -> Entity {
    let target = mapper.get_mapped(source);
    // Targets reserved by `queue_entity_clone` become live.
    world.flush();
    if !world.contains_entity(target) {
        panic!("cannot clone entity {source:?} onto entity {target:?}: the target does not exist");
    }
    let Some(location) = world.entities.get(source) else {
        panic!("cannot clone entity {source:?}: it does not exist");
    };
    let target_archetype = world
        .entities
        .get(target)
        .map(|l| l.archetype_id)
        .expect("checked above");
    let chosen = {
        let archetypes = &world.archetypes;
        let source_components: Vec<ComponentId> =
            archetypes[location.archetype_id].components().collect();
        let target_has = |id| archetypes[target_archetype].contains(id);
        let mut chosen = Vec::with_capacity(source_components.len());
        filter.clone_components(&source_components, &target_has, &mut |id| chosen.push(id));
        chosen
    };
    let mut cloned = ClonedComponents {
        scratch: CloneScratch::default(),
        moved: Vec::new(),
        deferred: Vec::new(),
    };
    for id in chosen {
        clone_component(state, world, source, target, id, mapper, &mut cloned);
    }
    world.flush();
    while let Some(deferred) = state.deferred_commands.pop_front() {
        deferred(world, mapper);
    }
    if !world.contains_entity(target) {
        panic!("entity {target:?}, the target of a clone of entity {source:?}, was despawned while cloning");
    }
    // A hook or observer of the source that panics does not stop the move:
    // the values taken still reach the target, then the panic goes on.
    let mut panics = DropPanics::default();
    if state.move_components && world.contains_entity(source) {
        let mut removed = cloned.scratch.ids();
        removed.append(&mut cloned.deferred);
        panics.catch(|| world.entity_mut(source).remove_ids_for_clone(&removed));
        panics.catch(|| {
            // SAFETY: `moved` holds components of `source`'s world; the
            // taken values are pushed, owned, into the scratch.
            unsafe {
                world
                    .entity_mut(source)
                    .take_ids_for_clone(&cloned.moved, &mut cloned.scratch)
            }
        });
    }
    if !cloned.scratch.is_empty() {
        panics.catch(|| {
            world.entity_mut(target).insert_clones(&mut cloned.scratch);
        });
    }
    panics.finish();
    target
}

/// Offers `source`'s component `id` to its clone function.
#[allow(clippy::too_many_arguments)]
fn clone_component(
    state: &mut EntityClonerState,
    world: &World,
    source: Entity,
    target: Entity,
    id: ComponentId,
    mapper: &mut dyn EntityMapper,
    cloned: &mut ClonedComponents,
) {
    let info = world
        .components
        .get_info(id)
        .expect("a component of an archetype is registered");
    let behavior = state
        .clone_behavior_overrides
        .get(&id)
        .unwrap_or(info.clone_behavior());
    let default_fn: ComponentCloneFn = if state.move_components {
        move_marker
    } else {
        state.default_clone_fn
    };
    let handler = match behavior {
        ComponentCloneBehavior::Ignore => return,
        other => other.resolve(default_fn),
    };
    let location = world.entities.get(source).expect("source checked");
    let (ptr, _, _) = world
        .component_ptr(id, info.storage_type(), source, location)
        .expect("the source's archetype has the component");
    // SAFETY: the value lives in the world, which is only read (shared
    // borrow) while the clone function runs.
    let ptr = unsafe { Ptr::new(NonNull::new(ptr).expect("component pointers are non-null")) };
    let source_component = SourceComponent { ptr, info };
    let mut ctx = ComponentCloneCtx {
        component_id: id,
        source,
        target,
        target_component_written: false,
        target_component_moved: false,
        scratch: &mut cloned.scratch,
        entities: &world.entities,
        component_info: info,
        state,
        mapper,
        marker: std::marker::PhantomData,
    };
    handler(&source_component, &mut ctx);
    if ctx.state.move_components {
        if ctx.target_component_moved {
            cloned.moved.push(id);
        } else if !ctx.target_component_written {
            cloned.deferred.push(id);
        }
    }
}

/// The default function while moving: the value is taken off the source
/// bitwise after every clone function ran.
fn move_marker(_source: &SourceComponent, ctx: &mut ComponentCloneCtx) {
    ctx.move_component();
}

/// The clone behavior `#[derive(Component)]` gives a
/// `#[relationship_target(..)]`: with linked cloning of a `linked_spawn`
/// target, each source is cloned too (its mapped relationship then lists
/// it on the clone); when moving, each source is re-pointed at the
/// target. Otherwise the list is not cloned, since it is the sources'
/// relationships that make it (bevy writes an empty list there).
#[doc(hidden)]
pub fn clone_relationship_target<T: RelationshipTarget>(
    source: &SourceComponent,
    ctx: &mut ComponentCloneCtx,
) {
    let Some(component) = source.read::<T>() else {
        return;
    };
    let sources: Vec<Entity> = component.iter().collect();
    if ctx.linked_cloning() && T::LINKED_SPAWN {
        for entity in sources {
            ctx.queue_entity_clone(entity);
        }
    } else if ctx.moving() {
        let target = ctx.target();
        ctx.queue_deferred(move |world, _| {
            for entity in sources {
                repoint::<T::Relationship>(world, entity, target);
            }
        });
    }
}

/// Re-inserts `entity`'s relationship pointing at `target`, so its hooks
/// move it from the old target's list to the new one's.
fn repoint<R: Relationship>(world: &mut World, entity: Entity, target: Entity) {
    if let Ok(mut entity_mut) = world.get_entity_mut(entity) {
        if let Some(mut relationship) = entity_mut.take::<R>() {
            relationship.set_risky(target);
            entity_mut.insert(relationship);
        }
    }
}

/// Configures an [`EntityCloner`]; see there.
pub struct EntityClonerBuilder<'w, Filter> {
    world: &'w mut World,
    filter: Filter,
    state: EntityClonerState,
}

impl<Filter: CloneByFilter> EntityClonerBuilder<'_, Filter> {
    /// Clones `source` onto `target` with the configuration so far.
    ///
    /// # Panics
    /// If `source` or `target` does not exist.
    #[track_caller]
    pub fn clone_entity(&mut self, source: Entity, target: Entity) -> &mut Self {
        let mut map = EntityHashMap::<Entity>::default();
        map.set_mapped(source, target);
        clone_entity_tree(
            &mut self.state,
            &mut self.filter,
            self.world,
            source,
            &mut map,
        );
        self
    }

    /// The configured cloner.
    pub fn finish(self) -> EntityCloner {
        EntityCloner {
            filter: self.filter.into(),
            state: self.state,
        }
    }

    /// Sets the function [`ComponentCloneBehavior::Default`] components are
    /// cloned with (by default, they are skipped). Moving ignores it.
    pub fn with_default_clone_fn(&mut self, clone_fn: ComponentCloneFn) -> &mut Self {
        self.state.default_clone_fn = clone_fn;
        self
    }

    /// Whether the cloned components are taken off the source.
    pub fn move_components(&mut self, enable: bool) -> &mut Self {
        self.state.move_components = enable;
        self
    }

    /// Clones `T` with `clone_behavior` instead of its own.
    pub fn override_clone_behavior<T: Component>(
        &mut self,
        clone_behavior: ComponentCloneBehavior,
    ) -> &mut Self {
        let id = self.world.register_component::<T>();
        self.override_clone_behavior_with_id(id, clone_behavior)
    }

    /// Clones the component `component_id` with `clone_behavior` instead
    /// of its own.
    pub fn override_clone_behavior_with_id(
        &mut self,
        component_id: ComponentId,
        clone_behavior: ComponentCloneBehavior,
    ) -> &mut Self {
        self.state
            .clone_behavior_overrides
            .insert(component_id, clone_behavior);
        self
    }

    /// Drops an override set for `T`.
    pub fn remove_clone_behavior_override<T: Component>(&mut self) -> &mut Self {
        if let Some(id) = self.world.component_id::<T>() {
            self.state.clone_behavior_overrides.remove(&id);
        }
        self
    }

    /// Drops an override set for `component_id`.
    pub fn remove_clone_behavior_override_with_id(
        &mut self,
        component_id: ComponentId,
    ) -> &mut Self {
        self.state.clone_behavior_overrides.remove(&component_id);
        self
    }

    /// Whether the sources of `linked_spawn` relationship targets (a
    /// hierarchy's children, recursively) are cloned too, their
    /// relationships pointing at the clones.
    pub fn linked_cloning(&mut self, linked_cloning: bool) -> &mut Self {
        self.state.linked_cloning = linked_cloning;
        self
    }

    /// The component ids of bundle `B`.
    fn bundle_ids<B: Bundle>(&mut self) -> Vec<ComponentId> {
        let id = self
            .world
            .bundles
            .register_info::<B>(&mut self.world.components);
        self.world.bundles[id].components().to_vec()
    }

    /// Resolves `ids` to component ids, skipping types never registered.
    fn resolve_ids<M: Marker>(&self, ids: impl FilterableIds<M>) -> Vec<ComponentId> {
        let mut resolved = Vec::new();
        ids.filter_ids(&mut |id| match id {
            FilterableId::Type(type_id) => {
                resolved.extend(self.world.components.get_id(type_id));
            }
            FilterableId::Component(id) => resolved.push(id),
            FilterableId::Bundle(id) => {
                if let Some(info) = self.world.bundles.get(id) {
                    resolved.extend_from_slice(info.components());
                }
            }
        });
        resolved
    }
}

impl EntityClonerBuilder<'_, OptOut> {
    /// Whether cloned components replace the ones the target has
    /// ([`InsertMode::Replace`], the default) or are cloned only where the
    /// target lacks them ([`InsertMode::Keep`]). No difference when the
    /// cloner spawns the target.
    pub fn insert_mode(&mut self, insert_mode: InsertMode) -> &mut Self {
        self.filter.insert_mode = insert_mode;
        self
    }

    /// Runs `builder` with denying a component no longer denying the
    /// components that require it.
    pub fn without_required_by_components(&mut self, builder: impl FnOnce(&mut Self)) -> &mut Self {
        self.filter.attach_required_by_components = false;
        builder(self);
        self.filter.attach_required_by_components = true;
        self
    }

    /// Denies every component of `B`, and the components requiring them
    /// (see [`Self::without_required_by_components`]).
    pub fn deny<B: Bundle>(&mut self) -> &mut Self {
        let ids = self.bundle_ids::<B>();
        self.deny_ids(ids)
    }

    /// Denies components given by [`TypeId`], [`ComponentId`] or
    /// [`BundleId`] (one, or an iterator of them).
    pub fn deny_by_ids<M: Marker>(&mut self, ids: impl FilterableIds<M>) -> &mut Self {
        let ids = self.resolve_ids(ids);
        self.deny_ids(ids)
    }

    fn deny_ids(&mut self, ids: Vec<ComponentId>) -> &mut Self {
        for id in ids {
            self.filter.deny.insert(id);
            if self.filter.attach_required_by_components {
                let requiring = self
                    .world
                    .components
                    .iter()
                    .filter(|info| info.required_components().iter().any(|r| r.id == id));
                self.filter.deny.extend(requiring.map(ComponentInfo::id));
            }
        }
        self
    }
}

impl EntityClonerBuilder<'_, OptIn> {
    /// Runs `builder` with allowing a component no longer allowing the
    /// components it requires.
    pub fn without_required_components(&mut self, builder: impl FnOnce(&mut Self)) -> &mut Self {
        self.filter.attach_required_components = false;
        builder(self);
        self.filter.attach_required_components = true;
        self
    }

    /// Allows every component of `B` (replacing the target's values), and
    /// the components they require where the target lacks them.
    pub fn allow<B: Bundle>(&mut self) -> &mut Self {
        let ids = self.bundle_ids::<B>();
        self.allow_ids(ids, false)
    }

    /// Allows every component of `B` the target does not have yet.
    pub fn allow_if_new<B: Bundle>(&mut self) -> &mut Self {
        let ids = self.bundle_ids::<B>();
        self.allow_ids(ids, true)
    }

    /// Allows components given by [`TypeId`], [`ComponentId`] or
    /// [`BundleId`] (one, or an iterator of them).
    pub fn allow_by_ids<M: Marker>(&mut self, ids: impl FilterableIds<M>) -> &mut Self {
        let ids = self.resolve_ids(ids);
        self.allow_ids(ids, false)
    }

    /// Allows components given by id that the target does not have yet.
    pub fn allow_by_ids_if_new<M: Marker>(&mut self, ids: impl FilterableIds<M>) -> &mut Self {
        let ids = self.resolve_ids(ids);
        self.allow_ids(ids, true)
    }

    /// Allowing a component again never turns replacing into keeping,
    /// and never drops the requirements an earlier allow attached.
    fn allow_ids(&mut self, ids: Vec<ComponentId>, if_new: bool) -> &mut Self {
        for id in ids {
            let required: Vec<ComponentId> = match (
                self.filter.attach_required_components,
                self.world.components.get_info(id),
            ) {
                (true, Some(info)) => info.required_components().iter().map(|r| r.id).collect(),
                _ => Vec::new(),
            };
            let allowed = self.filter.allow.entry(id).or_insert(Allowed {
                if_new,
                required: Vec::new(),
            });
            allowed.if_new &= if_new;
            if !required.is_empty() {
                allowed.required = required;
            }
        }
        self
    }
}

/// Picks which of the source's components are cloned. Implemented by
/// [`OptOut`] and [`OptIn`].
#[doc(hidden)]
pub trait CloneByFilter: Into<EntityClonerFilter> {
    /// Calls `clone` with each of `source` (the source's components) to
    /// clone; `target_has` says whether the target has a component.
    fn clone_components(
        &mut self,
        source: &[ComponentId],
        target_has: &dyn Fn(ComponentId) -> bool,
        clone: &mut dyn FnMut(ComponentId),
    );
}

/// The filter of a finished [`EntityCloner`]: either kind.
#[doc(hidden)]
pub enum EntityClonerFilter {
    /// Every component but the denied ones.
    OptOut(OptOut),
    /// Only the allowed components.
    OptIn(OptIn),
}

impl Default for EntityClonerFilter {
    fn default() -> Self {
        Self::OptOut(OptOut::default())
    }
}

impl CloneByFilter for EntityClonerFilter {
    fn clone_components(
        &mut self,
        source: &[ComponentId],
        target_has: &dyn Fn(ComponentId) -> bool,
        clone: &mut dyn FnMut(ComponentId),
    ) {
        match self {
            Self::OptOut(filter) => filter.clone_components(source, target_has, clone),
            Self::OptIn(filter) => filter.clone_components(source, target_has, clone),
        }
    }
}

/// The opt-out filter: clones every component not denied.
pub struct OptOut {
    deny: HashSet<ComponentId>,
    insert_mode: InsertMode,
    attach_required_by_components: bool,
}

impl Default for OptOut {
    fn default() -> Self {
        Self {
            deny: HashSet::default(),
            insert_mode: InsertMode::Replace,
            attach_required_by_components: true,
        }
    }
}

impl From<OptOut> for EntityClonerFilter {
    fn from(filter: OptOut) -> Self {
        Self::OptOut(filter)
    }
}

impl CloneByFilter for OptOut {
    fn clone_components(
        &mut self,
        source: &[ComponentId],
        target_has: &dyn Fn(ComponentId) -> bool,
        clone: &mut dyn FnMut(ComponentId),
    ) {
        let keep = self.insert_mode == InsertMode::Keep;
        for &id in source {
            let kept = keep && target_has(id);
            if !kept && !self.deny.contains(&id) {
                clone(id);
            }
        }
    }
}

/// The opt-in filter: clones only the allowed components (and what they
/// require).
pub struct OptIn {
    allow: HashMap<ComponentId, Allowed>,
    attach_required_components: bool,
}

/// How an allowed component is cloned.
struct Allowed {
    /// Only when the target lacks it.
    if_new: bool,
    /// Its required components, cloned with it where the target lacks them.
    required: Vec<ComponentId>,
}

impl Default for OptIn {
    fn default() -> Self {
        Self {
            allow: HashMap::default(),
            attach_required_components: true,
        }
    }
}

impl From<OptIn> for EntityClonerFilter {
    fn from(filter: OptIn) -> Self {
        Self::OptIn(filter)
    }
}

impl CloneByFilter for OptIn {
    fn clone_components(
        &mut self,
        source: &[ComponentId],
        target_has: &dyn Fn(ComponentId) -> bool,
        clone: &mut dyn FnMut(ComponentId),
    ) {
        let mut chosen = Vec::new();
        for &id in source {
            if let Some(allowed) = self.allow.get(&id) {
                if !(allowed.if_new && target_has(id)) {
                    chosen.push(id);
                }
            }
        }
        let explicit = chosen.len();
        for i in 0..explicit {
            for &required in &self.allow[&chosen[i]].required {
                if source.contains(&required)
                    && !target_has(required)
                    && !chosen.contains(&required)
                {
                    chosen.push(required);
                }
            }
        }
        chosen.into_iter().for_each(clone);
    }
}

pub use private::{FilterableId, FilterableIds, Marker, ScalarType, VectorType};

mod private {
    use super::*;

    /// Lets [`FilterableIds`] have one blanket impl per kind of argument.
    pub trait Marker {}
    /// [`FilterableIds`] of one id.
    pub struct ScalarType {}
    impl Marker for ScalarType {}
    /// [`FilterableIds`] of an iterator of ids.
    pub struct VectorType {}
    impl Marker for VectorType {}

    /// An id a cloner filter accepts.
    pub enum FilterableId {
        /// A component's Rust type.
        Type(TypeId),
        /// A component.
        Component(ComponentId),
        /// Every component of a bundle.
        Bundle(BundleId),
    }

    impl From<TypeId> for FilterableId {
        fn from(id: TypeId) -> Self {
            Self::Type(id)
        }
    }

    impl From<ComponentId> for FilterableId {
        fn from(id: ComponentId) -> Self {
            Self::Component(id)
        }
    }

    impl From<BundleId> for FilterableId {
        fn from(id: BundleId) -> Self {
            Self::Bundle(id)
        }
    }

    impl<T: Into<FilterableId> + Copy> From<&T> for FilterableId {
        fn from(value: &T) -> Self {
            (*value).into()
        }
    }

    /// One id or an iterator of ids, for the `*_by_ids` filter methods.
    pub trait FilterableIds<M: Marker> {
        /// Calls `ids` with each id.
        fn filter_ids(self, ids: &mut impl FnMut(FilterableId));
    }

    impl<I, T> FilterableIds<VectorType> for I
    where
        I: IntoIterator<Item = T>,
        T: Into<FilterableId>,
    {
        fn filter_ids(self, ids: &mut impl FnMut(FilterableId)) {
            self.into_iter().for_each(|id| ids(id.into()));
        }
    }

    impl<T: Into<FilterableId>> FilterableIds<ScalarType> for T {
        fn filter_ids(self, ids: &mut impl FnMut(FilterableId)) {
            ids(self.into());
        }
    }
}
