//! Panic injection: every user callback the world calls panics at its k-th
//! call, for every k, across every structural operation, on table and
//! sparse-set storage.
//!
//! The instrumented callbacks: `Default` of an ignored bundle field (what
//! `take`'s `from_components` calls), `Drop` of every value (components,
//! replaced and rejected values, the ignored field `get_components` drops,
//! resources), `Clone` (inside a required constructor), required-component
//! constructors, all five hooks, lifecycle and custom-event observers,
//! commands queued by hooks and observers, the input iterator of
//! `spawn_batch`, system bodies and a `resource_scope` closure. One counter
//! numbers all their calls in order (see `common::fault_plan`). A scenario
//! (one operation on one storage) first runs without a panic, which traces
//! its K calls; then, on a fresh world each time, it runs with the panic at
//! call k for k = 1..=K, in two modes: the k-th call panics once, or every
//! call from the k-th on panics (so recovery paths meet panics too).
//!
//! After each run, on a world that held table, sparse and plain
//! entities before: `check_integrity()` holds (before and after a flush);
//! the scoped resource is back; `entity_count` equals the entities a query
//! sees; no entity is half there (a bundle's components are all there or
//! none, and a requirer has its required components); no empty entity
//! appears unless commands reserved it; every value reachable in the world
//! is live and in one place, and the live count equals the reachable count;
//! no value was dropped twice; the world keeps working; and once the world
//! is dropped every value created was dropped exactly once.
//!
//! Each test covers one operation on both storages and prints
//! `panic_injection[op]: N scenarios x K positions x 2 modes = M injected
//! panics, all consistent`; it fails listing every inconsistent run as
//! (scenario, storage, k, mode, callback) and what went wrong. Under Miri
//! the size is reduced (see `small`).
//! Double drops are counted, never freed twice, so a defect is reported
//! instead of aborting the binary. Tests that run the multi-threaded
//! executor are named `parallel_*` (skip them under Stacked Borrows).

mod common;

use std::any::type_name;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use common::fault_plan::{tick, Fault, Payload, INJECTED};
use common::panics::panic_text;
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::system::CommandQueue;
use ecs::world::DeferredWorld;

// ---- size -----------------------------------------------------------------------------

/// The reduced size, for Miri (set `PANIC_INJECTION_SMALL` to try it
/// natively): fewer entities and batch items, and instead of every call
/// position only the first call of each kind of callback (of one kind
/// under Miri), panicking once.
fn small() -> bool {
    cfg!(miri) || std::env::var_os("PANIC_INJECTION_SMALL").is_some()
}

/// Pre-existing entities of each kind (whole table, whole sparse, plain).
fn per_kind() -> usize {
    if small() {
        1
    } else {
        3
    }
}

/// Items of a `spawn_batch`.
fn batch_len() -> u32 {
    if small() {
        2
    } else {
        4
    }
}

// ---- components -----------------------------------------------------------------------

mod hooks {
    use super::*;

    fn site(kind: &str, component: &str) -> String {
        let short = component.rsplit("::").next().unwrap_or(component);
        format!("hook {kind} of {short}")
    }

    pub fn add<C: Component>(mut world: DeferredWorld, _: HookContext) {
        tick(&site("on_add", type_name::<C>()));
        world.commands().queue(|_: &mut World| {
            tick("command queued by an on_add hook");
        });
    }
    pub fn insert<C: Component>(_: DeferredWorld, _: HookContext) {
        tick(&site("on_insert", type_name::<C>()));
    }
    pub fn discard<C: Component>(_: DeferredWorld, _: HookContext) {
        tick(&site("on_discard", type_name::<C>()));
    }
    pub fn remove<C: Component>(_: DeferredWorld, _: HookContext) {
        tick(&site("on_remove", type_name::<C>()));
    }
    pub fn despawn<C: Component>(_: DeferredWorld, _: HookContext) {
        tick(&site("on_despawn", type_name::<C>()));
    }
}

/// The main component of a table bundle: all hooks, two requirements.
#[derive(Component)]
#[component(
    on_add = hooks::add::<Self>,
    on_insert = hooks::insert::<Self>,
    on_discard = hooks::discard::<Self>,
    on_remove = hooks::remove::<Self>,
    on_despawn = hooks::despawn::<Self>,
)]
#[require(Required = make_required(), SparseRequired = make_sparse_required())]
struct Hooked(Payload);

/// The main component of a sparse bundle: all hooks, two requirements.
#[derive(Component)]
#[component(
    storage = "SparseSet",
    on_add = hooks::add::<Self>,
    on_insert = hooks::insert::<Self>,
    on_discard = hooks::discard::<Self>,
    on_remove = hooks::remove::<Self>,
    on_despawn = hooks::despawn::<Self>,
)]
#[require(Required = make_required(), SparseRequired = make_sparse_required())]
struct SparseHooked(Payload);

/// Required, table.
#[derive(Component)]
struct Required(Payload);

/// Required, sparse; made by cloning a template.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseRequired(Payload);

fn make_required() -> Required {
    tick("required constructor of Required");
    Required(Payload::new("Drop of Required"))
}

fn make_sparse_required() -> SparseRequired {
    tick("required constructor of SparseRequired");
    SparseRequired(Payload::template("Drop of SparseRequired").clone())
}

/// The second member of a table bundle (no hooks).
#[derive(Component)]
struct Member(Payload);

/// The second member of a sparse bundle (no hooks).
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseMember(Payload);

#[derive(Component)]
struct TableMark;

#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseMark;

/// Bystanders' components, in no bundle.
#[derive(Component)]
struct Plain(Payload);

#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparsePlain(Payload);

/// What commands queued by observers spawn.
#[derive(Component)]
struct Spawned(Payload);

/// The ignored field of a bundle: `get_components` drops it, `take`'s
/// `from_components` makes it with `Default`.
struct Extra(#[allow(dead_code)] Payload);

impl Default for Extra {
    fn default() -> Self {
        tick("Default of an ignored field (from_components)");
        Extra(Payload::new("Drop of an ignored field"))
    }
}

#[derive(Bundle)]
struct Whole<M: Component, Mb: Component, Mk: Component> {
    main: M,
    member: Mb,
    mark: Mk,
    #[bundle(ignore)]
    #[allow(dead_code)]
    extra: Extra,
}

#[derive(Resource)]
struct Res1(Payload);

/// The fault, for systems that may run on other threads.
#[derive(Resource)]
struct FaultRes(Fault);

#[derive(EntityEvent)]
struct Ping(Entity);

// ---- storage kinds ----------------------------------------------------------------------

/// Table or sparse-set storage of a scenario's bundle.
trait Kind: Send + Sync + 'static {
    const NAME: &'static str;
    type Main: Component + Carrier;
    type Member: Component + Carrier;
    type Mark: Component;
    fn whole_with(fault: &Fault) -> WholeOf<Self>;
}

type WholeOf<K> = Whole<<K as Kind>::Main, <K as Kind>::Member, <K as Kind>::Mark>;

struct Table;
struct Sparse;

impl Kind for Table {
    const NAME: &'static str = "table";
    type Main = Hooked;
    type Member = Member;
    type Mark = TableMark;
    fn whole_with(fault: &Fault) -> WholeOf<Self> {
        Whole {
            main: Hooked(Payload::with(fault, "Drop of Hooked")),
            member: Member(Payload::with(fault, "Drop of Member")),
            mark: TableMark,
            extra: Extra(Payload::with(fault, "Drop of an ignored field")),
        }
    }
}

impl Kind for Sparse {
    const NAME: &'static str = "sparse";
    type Main = SparseHooked;
    type Member = SparseMember;
    type Mark = SparseMark;
    fn whole_with(fault: &Fault) -> WholeOf<Self> {
        Whole {
            main: SparseHooked(Payload::with(fault, "Drop of SparseHooked")),
            member: SparseMember(Payload::with(fault, "Drop of SparseMember")),
            mark: SparseMark,
            extra: Extra(Payload::with(fault, "Drop of an ignored field")),
        }
    }
}

/// A component holding one payload.
trait Carrier {
    fn id(&self) -> u64;
}

macro_rules! carriers {
    ($($c:ident),*) => {$(
        impl Carrier for $c {
            fn id(&self) -> u64 {
                self.0.id()
            }
        }
    )*};
}

carriers!(
    Hooked,
    SparseHooked,
    Required,
    SparseRequired,
    Member,
    SparseMember,
    Plain,
    SparsePlain,
    Spawned
);

fn fault() -> Fault {
    Fault::current().expect("a fault is installed on this thread")
}

fn whole<K: Kind>() -> WholeOf<K> {
    K::whole_with(&fault())
}

fn plain_pair() -> (Plain, SparsePlain) {
    (
        Plain(Payload::new("Drop of Plain")),
        SparsePlain(Payload::new("Drop of SparsePlain")),
    )
}

// ---- the world before each run ----------------------------------------------------------

/// Entities a scenario acts on.
struct Fixture {
    /// A whole bundle of the scenario's kind, between bystanders.
    victim: Entity,
    /// Only `(Plain, SparsePlain)`.
    plain: Entity,
    /// Whole table, whole sparse and plain entities.
    bystanders: Vec<Entity>,
}

fn add_observers<K: Kind>(world: &mut World) {
    world.add_observer(|_: On<Add<Hooked>>| tick("observer On<Add<Hooked>>"));
    world.add_observer(|_: On<Insert<Hooked>>, mut commands: Commands| {
        tick("observer On<Insert<Hooked>>");
        commands.queue(|w: &mut World| {
            tick("command queued by an observer");
            w.spawn(Spawned(Payload::new("Drop of Spawned")));
        });
    });
    world.add_observer(|_: On<Discard<SparseHooked>>| tick("observer On<Discard<SparseHooked>>"));
    world.add_observer(|_: On<Remove<SparseHooked>>| tick("observer On<Remove<SparseHooked>>"));
    world.add_observer(|_: On<Despawn<Hooked>>| tick("observer On<Despawn<Hooked>>"));
    world.add_observer(|ev: On<Ping>, mut commands: Commands| {
        tick("observer On<Ping> (insert)");
        let bundle = whole::<K>();
        commands.entity(ev.0).insert(bundle);
    });
    world.add_observer(|ev: On<Ping>, mut commands: Commands| {
        tick("observer On<Ping> (remove)");
        commands.entity(ev.0).remove::<WholeOf<K>>();
    });
}

fn build<K: Kind>() -> (World, Fixture) {
    let mut world = World::new();
    world.insert_resource(Res1(Payload::new("Drop of Res1")));
    world.insert_resource(FaultRes(fault()));
    add_observers::<K>(&mut world);
    let mut bystanders = Vec::new();
    let mut some = |world: &mut World| {
        for _ in 0..per_kind() {
            bystanders.push(world.spawn(whole::<Table>()).id());
            bystanders.push(world.spawn(whole::<Sparse>()).id());
            bystanders.push(world.spawn(plain_pair()).id());
        }
    };
    // Bystanders after the victim, so that swap-removes move rows.
    if !small() {
        some(&mut world);
    }
    let victim = world.spawn(whole::<K>()).id();
    let plain = world.spawn(plain_pair()).id();
    some(&mut world);
    world.flush();
    (
        world,
        Fixture {
            victim,
            plain,
            bystanders,
        },
    )
}

// ---- operations -------------------------------------------------------------------------

/// Yields whole bundles, counting each item as a callback.
struct Batch<K> {
    left: u32,
    kind: std::marker::PhantomData<K>,
}

fn batch<K: Kind>() -> Batch<K> {
    Batch {
        left: batch_len(),
        kind: std::marker::PhantomData,
    }
}

impl<K: Kind> Iterator for Batch<K> {
    type Item = WholeOf<K>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        tick("input iterator of spawn_batch");
        self.left -= 1;
        Some(whole::<K>())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

fn sys_mutate(fault: Res<FaultRes>, mut q: Query<&mut Plain>) {
    fault.0.tick("system body sys_mutate");
    for mut p in &mut q {
        p.0 = Payload::with(&fault.0, "Drop of Plain");
    }
}

fn sys_spawn<K: Kind>(fault: Res<FaultRes>, mut commands: Commands) {
    fault.0.tick("system body sys_spawn");
    commands.spawn(K::whole_with(&fault.0));
}

fn sys_remove<K: Kind>(fault: Res<FaultRes>, q: Query<Entity, With<K::Mark>>, mut c: Commands) {
    fault.0.tick("system body sys_remove");
    if let Some(e) = q.iter().next() {
        c.entity(e).remove::<WholeOf<K>>();
    }
}

fn sys_despawn(fault: Res<FaultRes>, q: Query<Entity, With<SparsePlain>>, mut commands: Commands) {
    fault.0.tick("system body sys_despawn");
    if let Some(e) = q.iter().next() {
        commands.entity(e).despawn();
    }
}

fn run_schedule<K: Kind>(world: &mut World, mut schedule: Schedule) {
    schedule.add_systems((
        sys_mutate,
        sys_spawn::<K>,
        sys_remove::<K>.after(sys_mutate),
        sys_despawn.after(sys_spawn::<K>),
    ));
    schedule.run(world);
}

fn apply_commands<K: Kind>(world: &mut World, f: &Fixture) {
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, world);
    commands.spawn(whole::<K>());
    commands.entity(f.victim).insert(whole::<K>());
    commands.entity(f.plain).insert_if_new(whole::<K>());
    commands.entity(f.bystanders[0]).remove::<WholeOf<Table>>();
    commands.entity(f.bystanders[1]).despawn();
    let held = Payload::new("Drop of a command's captured value");
    commands.queue(move |w: &mut World| {
        tick("command closure");
        w.spawn(Spawned(held));
    });
    commands.spawn_batch(batch::<K>());
    commands.entity(f.bystanders[2]).insert(whole::<K>());
    queue.apply(world);
}

fn scope_resource<K: Kind>(world: &mut World) {
    world.resource_scope(|w, mut r: Mut<Res1>| {
        tick("resource_scope closure");
        w.spawn(whole::<K>());
        r.0 = Payload::new("Drop of Res1");
        tick("resource_scope closure, after its changes");
    });
}

/// The closure inserts the resource it holds (bad input, which panics
/// after the scope): the inserted value is dropped, the scoped one kept.
fn scope_resource_reinserting<K: Kind>(world: &mut World) {
    world.resource_scope(|w, mut r: Mut<Res1>| {
        tick("resource_scope closure");
        w.spawn(whole::<K>());
        w.insert_resource(Res1(Payload::new("Drop of Res1 inserted during its scope")));
        r.0 = Payload::new("Drop of Res1");
    });
}

/// One operation on a fresh fixture.
type Op = fn(&mut World, &Fixture);

/// One row of the scenario table.
struct Scenario {
    op: &'static str,
    variant: &'static str,
    storage: &'static str,
    run: Op,
    /// Build the fixture and check the world for this storage kind.
    build: fn() -> (World, Fixture),
    /// Commands reserve entities that an unapplied spawn leaves empty.
    reserves: bool,
    /// A panic the operation makes by itself (bad input), not injected.
    expected: Option<&'static str>,
}

macro_rules! scenario {
    ($op:literal, $variant:literal, reserves = $reserves:literal, expected = $expected:expr,
     |$w:ident, $f:ident| $body:expr) => {
        [
            scenario!(@one Table, $op, $variant, $reserves, $expected, |$w, $f| $body),
            scenario!(@one Sparse, $op, $variant, $reserves, $expected, |$w, $f| $body),
        ]
    };
    ($op:literal, $variant:literal, reserves = $reserves:literal, |$w:ident, $f:ident| $body:expr) => {
        scenario!($op, $variant, reserves = $reserves, expected = None, |$w, $f| $body)
    };
    ($op:literal, $variant:literal, |$w:ident, $f:ident| $body:expr) => {
        scenario!($op, $variant, reserves = false, expected = None, |$w, $f| $body)
    };
    (@one $kind:ident, $op:literal, $variant:literal, $reserves:literal, $expected:expr,
     |$w:ident, $f:ident| $body:expr) => {{
        #[allow(unused_variables, non_camel_case_types)]
        fn run<K: Kind>($w: &mut World, $f: &Fixture) {
            $body
        }
        Scenario {
            op: $op,
            variant: $variant,
            storage: <$kind as Kind>::NAME,
            run: run::<$kind>,
            build: build::<$kind>,
            reserves: $reserves,
            expected: $expected,
        }
    }};
}

/// Flattens scenarios given as (table, sparse) pairs by [`scenario!`].
fn both_storages<const N: usize>(pairs: [[Scenario; 2]; N]) -> Vec<Scenario> {
    pairs.into_iter().flatten().collect()
}

fn spawn_scenarios() -> Vec<Scenario> {
    both_storages([scenario!("spawn", "", |w, f| {
        w.spawn(whole::<K>());
    })])
}

fn spawn_batch_scenarios() -> Vec<Scenario> {
    both_storages([
        scenario!("spawn_batch", "ids collected", |w, f| {
            let _ids: Vec<Entity> = w.spawn_batch(batch::<K>()).collect();
        }),
        scenario!("spawn_batch", "iterator dropped unread", |w, f| {
            drop(w.spawn_batch(batch::<K>()));
        }),
    ])
}

fn insert_scenarios() -> Vec<Scenario> {
    both_storages([
        scenario!("insert", "replacing a whole bundle", |w, f| {
            w.entity_mut(f.victim).insert(whole::<K>());
        }),
        scenario!("insert", "adding to a plain entity", |w, f| {
            w.entity_mut(f.plain).insert(whole::<K>());
        }),
    ])
}

fn insert_if_new_scenarios() -> Vec<Scenario> {
    both_storages([
        scenario!("insert_if_new", "all rejected", |w, f| {
            w.entity_mut(f.victim).insert_if_new(whole::<K>());
        }),
        scenario!("insert_if_new", "all added", |w, f| {
            w.entity_mut(f.plain).insert_if_new(whole::<K>());
        }),
    ])
}

fn remove_scenarios() -> Vec<Scenario> {
    both_storages([scenario!("remove", "", |w, f| {
        w.entity_mut(f.victim).remove::<WholeOf<K>>();
    })])
}

fn take_scenarios() -> Vec<Scenario> {
    both_storages([scenario!("take", "", |w, f| {
        let taken = w.entity_mut(f.victim).take::<WholeOf<K>>();
        assert!(taken.is_some(), "take found the whole bundle");
        drop(taken);
    })])
}

fn despawn_scenarios() -> Vec<Scenario> {
    both_storages([
        scenario!("despawn", "World::despawn", |w, f| {
            w.despawn(f.victim);
        }),
        scenario!("despawn", "EntityWorldMut::despawn", |w, f| {
            w.entity_mut(f.victim).despawn();
        }),
    ])
}

fn clear_entities_scenarios() -> Vec<Scenario> {
    both_storages([scenario!("clear_entities", "", |w, f| w.clear_entities())])
}

fn commands_scenarios() -> Vec<Scenario> {
    both_storages([scenario!("commands apply", "", reserves = true, |w, f| {
        apply_commands::<K>(w, f)
    })])
}

fn trigger_scenarios() -> Vec<Scenario> {
    both_storages([scenario!("trigger", "", |w, f| w.trigger(Ping(f.victim)))])
}

fn schedule_scenarios() -> Vec<Scenario> {
    both_storages([scenario!(
        "schedule run",
        "single-threaded",
        reserves = true,
        |w, f| run_schedule::<K>(w, Schedule::single_threaded())
    )])
}

fn parallel_schedule_scenarios() -> Vec<Scenario> {
    both_storages([scenario!(
        "schedule run",
        "multi-threaded",
        reserves = true,
        |w, f| run_schedule::<K>(w, Schedule::default())
    )])
}

fn resource_scope_scenarios() -> Vec<Scenario> {
    both_storages([
        scenario!("resource_scope", "", |w, f| scope_resource::<K>(w)),
        scenario!(
            "resource_scope",
            "closure inserts the scoped resource",
            reserves = false,
            expected = Some("was inserted during `resource_scope`"),
            |w, f| scope_resource_reinserting::<K>(w)
        ),
    ])
}

// ---- checks -----------------------------------------------------------------------------

/// Runs `f`, turning a panic into a problem named `what`.
fn guarded(problems: &mut Vec<String>, what: &str, f: impl FnOnce(&mut Vec<String>)) {
    let mut inner = Vec::new();
    let result = catch_unwind(AssertUnwindSafe(|| f(&mut inner)));
    problems.extend(inner);
    if let Err(payload) = result {
        problems.push(format!("{what} panicked: {}", panic_text(&*payload)));
    }
}

fn integrity(world: &World, when: &str, problems: &mut Vec<String>) {
    if let Err(msg) = world.check_integrity() {
        problems.push(format!("check_integrity {when}: {msg}"));
    }
}

/// A bundle of kind `K` is all there or not at all, with its requirements,
/// and its values are all from before the operation (ids up to `old`) or
/// all from it.
fn wholeness<K: Kind>(world: &mut World, old: u64, problems: &mut Vec<String>) {
    let mut q = world.query::<(
        Entity,
        Option<&K::Main>,
        Option<&K::Member>,
        Has<K::Mark>,
        Has<Required>,
        Has<SparseRequired>,
    )>();
    for (e, main, member, mark, r, rs) in q.iter(world) {
        let (has_main, has_member) = (main.is_some(), member.is_some());
        if has_main != mark || (mark && !(has_member && r && rs)) {
            problems.push(format!(
                "{e:?} is half there ({} bundle): main {has_main}, member {has_member}, \
                 mark {mark}, Required {r}, SparseRequired {rs}",
                K::NAME
            ));
        }
        if let (Some(main), Some(member)) = (main, member) {
            if (main.id() <= old) != (member.id() <= old) {
                problems.push(format!(
                    "{e:?} mixes old and new values of one {} bundle: main #{}, member #{}",
                    K::NAME,
                    main.id(),
                    member.id()
                ));
            }
        }
    }
}

/// The payload ids reachable in the world, component by component.
fn reachable(world: &mut World) -> Vec<u64> {
    let mut q = world.query::<(
        Option<&Hooked>,
        Option<&SparseHooked>,
        Option<&Required>,
        Option<&SparseRequired>,
        Option<&Member>,
        Option<&SparseMember>,
        Option<&Plain>,
        Option<&SparsePlain>,
        Option<&Spawned>,
    )>();
    let mut out = Vec::new();
    for (a, b, c, d, e, f, g, h, i) in q.iter(world) {
        let carriers: [Option<&dyn Carrier>; 9] = [
            a.map(|x| x as &dyn Carrier),
            b.map(|x| x as &dyn Carrier),
            c.map(|x| x as &dyn Carrier),
            d.map(|x| x as &dyn Carrier),
            e.map(|x| x as &dyn Carrier),
            f.map(|x| x as &dyn Carrier),
            g.map(|x| x as &dyn Carrier),
            h.map(|x| x as &dyn Carrier),
            i.map(|x| x as &dyn Carrier),
        ];
        out.extend(carriers.into_iter().flatten().map(|c| c.id()));
    }
    if let Some(r) = world.get_resource::<Res1>() {
        out.push(r.0.id());
    }
    out
}

fn values(world: &mut World, fault: &Fault, problems: &mut Vec<String>) {
    let ids = reachable(world);
    let distinct: BTreeSet<u64> = ids.iter().copied().collect();
    if distinct.len() != ids.len() {
        problems.push(format!(
            "{} value(s) reachable in two places",
            ids.len() - distinct.len()
        ));
    }
    let dead: Vec<u64> = distinct
        .iter()
        .copied()
        .filter(|&id| !fault.is_live(id))
        .collect();
    if !dead.is_empty() {
        problems.push(format!(
            "value(s) reachable in the world after their drop (or never made): {dead:?}"
        ));
    }
    let live = fault.live_count();
    if live != distinct.len() as u64 {
        problems.push(format!(
            "{live} values live (created, not dropped) but {} reachable in the world",
            distinct.len()
        ));
    }
    problems.extend(fault.drop_problems(false));
}

fn entities(world: &mut World, reserves: bool, problems: &mut Vec<String>) {
    let mut q = world.query::<Entity>();
    let seen: Vec<Entity> = q.iter(world).collect();
    if seen.len() != world.entity_count() {
        problems.push(format!(
            "entity_count is {} but a query over all entities sees {}",
            world.entity_count(),
            seen.len()
        ));
    }
    if !reserves {
        for e in seen {
            if world.entity(e).archetype().component_count() == 0 {
                problems.push(format!("{e:?} is an empty (phantom) entity"));
            }
        }
    }
}

/// The world still works: structural changes, queries, integrity.
fn usable<K: Kind>(world: &mut World, problems: &mut Vec<String>) {
    let e = world.spawn(whole::<K>()).id();
    world.entity_mut(e).insert(plain_pair());
    world.entity_mut(e).insert(whole::<K>());
    world.entity_mut(e).remove::<WholeOf<K>>();
    let mut q = world.query::<(Entity, &Plain, &SparsePlain, &Required)>();
    if !q.iter(world).any(|(x, ..)| x == e) {
        problems.push(format!(
            "{e:?} spawned after the panic is not found by a query"
        ));
    }
    if !small() {
        let other = world.spawn(whole::<Table>()).id();
        world.entity_mut(other).insert(whole::<Sparse>());
        let _ids: Vec<Entity> = world.spawn_batch(batch::<K>()).collect();
        world.despawn(other);
    }
    world.despawn(e);
    integrity(world, "after using the world", problems);
}

/// Every check after a caught (or absent) panic; the world is dropped.
/// Values with ids up to `old` existed before the operation.
fn check<K: Kind>(mut world: World, fault: &Fault, old: u64, reserves: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let p = &mut problems;
    integrity(&world, "right after the operation", p);
    // Commands that hooks and observers queued before the panic are still
    // the world's: applying them must work.
    guarded(p, "flushing", |_| {
        world.flush();
        world.flush_commands();
    });
    integrity(&world, "after a flush", p);
    if !world.contains_resource::<Res1>() {
        p.push("the resource Res1 is gone".into());
    }
    guarded(p, "counting entities", |p| {
        entities(&mut world, reserves, p)
    });
    guarded(p, "checking bundles", |p| {
        wholeness::<Table>(&mut world, old, p);
        wholeness::<Sparse>(&mut world, old, p);
    });
    guarded(p, "counting values", |p| values(&mut world, fault, p));
    guarded(&mut problems, "using the world afterwards", |p| {
        usable::<K>(&mut world, p)
    });
    guarded(&mut problems, "dropping the world", |_| drop(world));
    problems.extend(fault.drop_problems(true));
    problems
}

fn check_for(storage: &str) -> fn(World, &Fault, u64, bool) -> Vec<String> {
    if storage == Table::NAME {
        check::<Table>
    } else {
        check::<Sparse>
    }
}

// ---- the driver -------------------------------------------------------------------------

/// An inconsistency found after one injected panic.
struct Failure {
    scenario: String,
    mode: &'static str,
    k: u64,
    site: String,
    problems: Vec<String>,
}

struct Outcome {
    /// Call positions panicked at (in each mode).
    positions: u64,
    injected: u64,
    sites: BTreeSet<String>,
    failures: Vec<Failure>,
}

fn describe(s: &Scenario) -> String {
    if s.variant.is_empty() {
        format!("{} [{}]", s.op, s.storage)
    } else {
        format!("{} ({}) [{}]", s.op, s.variant, s.storage)
    }
}

/// The two ways a callback fails: once, or at every call from the k-th on.
fn modes() -> &'static [(&'static str, bool)] {
    if small() {
        &[("once", false)]
    } else {
        &[("once", false), ("from k on", true)]
    }
}

/// The kind of callback a site is, for the reduced size.
fn callback_kind(site: &str) -> &str {
    const KINDS: [&str; 10] = [
        "Drop",
        "Default",
        "Clone",
        "required constructor",
        "hook",
        "observer",
        "command",
        "input iterator",
        "system body",
        "resource_scope closure",
    ];
    KINDS
        .into_iter()
        .find(|kind| site.starts_with(kind))
        .unwrap_or(site)
}

/// The call positions to inject at: every one; at the reduced size the
/// first call of each kind of callback; under Miri, whose runs are slow,
/// the first call of one kind, a different kind from scenario to scenario.
fn positions(scenario: &str, trace: &[String]) -> Vec<u64> {
    let all = 1..=trace.len() as u64;
    if !small() {
        return all.collect();
    }
    let mut seen = BTreeSet::new();
    let firsts: Vec<u64> = all
        .zip(trace)
        .filter(|(_, site)| seen.insert(callback_kind(site)))
        .map(|(k, _)| k)
        .collect();
    if !cfg!(miri) || firsts.is_empty() {
        return firsts;
    }
    let turn = scenario.bytes().map(usize::from).sum::<usize>();
    vec![firsts[turn % firsts.len()]]
}

/// Runs `s` once without a panic (which must be consistent too, and
/// traces the callback calls), then with the panic at each position.
fn drive(s: &Scenario) -> Outcome {
    let mut outcome = Outcome {
        positions: 0,
        injected: 0,
        sites: BTreeSet::new(),
        failures: Vec::new(),
    };
    let trace = run_once(s, "no panic", u64::MAX, false, &mut outcome);
    outcome.sites.extend(trace.iter().cloned());
    let positions = positions(&describe(s), &trace);
    outcome.positions = positions.len() as u64;
    for &(mode, from_k_on) in modes() {
        for &k in &positions {
            run_once(s, mode, k, from_k_on, &mut outcome);
            outcome.injected += 1;
        }
    }
    outcome
}

/// One run of `s` on a fresh fixture with the panic at call `k`, checked;
/// returns the trace of the callbacks called.
fn run_once(
    s: &Scenario,
    mode: &'static str,
    k: u64,
    from_k_on: bool,
    outcome: &mut Outcome,
) -> Vec<String> {
    let fault = Fault::default();
    fault.install();
    let (mut world, fixture) = (s.build)();
    let old = fault.created();
    fault.arm(k, from_k_on);
    let result = catch_unwind(AssertUnwindSafe(|| (s.run)(&mut world, &fixture)));
    let (_, fired) = fault.disarm();
    let trace = fault.trace();
    let mut problems = Vec::new();
    match (&result, &fired) {
        (Err(payload), None) => {
            let text = panic_text(&**payload);
            if !s.expected.is_some_and(|e| text.contains(e)) {
                problems.push(format!("panicked with no injected panic: {text}"));
            }
        }
        (Ok(()), Some(site)) => {
            problems.push(format!("the injected panic in {site} was swallowed"))
        }
        (Err(payload), Some(_)) => {
            let text = panic_text(&**payload);
            let expected = s.expected.is_some_and(|e| text.contains(e));
            if !text.contains(INJECTED) && !expected {
                problems.push(format!("a different panic propagated: {text}"));
            }
        }
        (Ok(()), None) => {}
    }
    problems.extend(check_for(s.storage)(world, &fault, old, s.reserves));
    Fault::uninstall();
    if !problems.is_empty() {
        outcome.failures.push(Failure {
            scenario: describe(s),
            mode,
            k,
            site: fired.unwrap_or_else(|| "(no injected panic)".into()),
            problems,
        });
    }
    trace
}

/// Keeps the injected panics out of the output; other panics print.
fn quiet_injected_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !panic_text(info.payload()).starts_with(INJECTED) {
                default(info);
            }
        }));
    });
}

/// Runs every scenario of one operation and fails listing every
/// inconsistent run.
fn run_all(op: &str, scenarios: Vec<Scenario>) {
    quiet_injected_panics();
    let mut injected = 0;
    let (mut fewest, mut most) = (u64::MAX, 0);
    let mut failures = Vec::new();
    for s in &scenarios {
        let outcome = drive(s);
        println!(
            "  {}: {} positions; callbacks: {}",
            describe(s),
            outcome.positions,
            outcome.sites.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        injected += outcome.injected;
        fewest = fewest.min(outcome.positions);
        most = most.max(outcome.positions);
        failures.extend(outcome.failures);
    }
    let n = scenarios.len();
    let modes = modes().len();
    if failures.is_empty() {
        println!(
            "panic_injection[{op}]: {n} scenarios x {fewest}..={most} positions x {modes} modes \
             = {injected} injected panics, all consistent{}",
            if small() { " (reduced size)" } else { "" }
        );
        return;
    }
    let mut report = format!(
        "panic_injection[{op}]: {n} scenarios, {injected} injected panics, {} inconsistent runs:\n",
        failures.len()
    );
    for f in &failures {
        report.push_str(&format!(
            "- {} k={} ({}) panic in {}:\n    {}\n",
            f.scenario,
            f.k,
            f.mode,
            f.site,
            f.problems.join("\n    ")
        ));
    }
    panic!("{report}");
}

#[test]
fn spawn() {
    run_all("spawn", spawn_scenarios());
}

#[test]
fn spawn_batch() {
    run_all("spawn_batch", spawn_batch_scenarios());
}

#[test]
fn insert() {
    run_all("insert", insert_scenarios());
}

#[test]
fn insert_if_new() {
    run_all("insert_if_new", insert_if_new_scenarios());
}

#[test]
fn remove() {
    run_all("remove", remove_scenarios());
}

#[test]
fn take() {
    run_all("take", take_scenarios());
}

#[test]
fn despawn() {
    run_all("despawn", despawn_scenarios());
}

#[test]
fn clear_entities() {
    run_all("clear_entities", clear_entities_scenarios());
}

#[test]
fn commands_apply() {
    run_all("commands apply", commands_scenarios());
}

#[test]
fn trigger() {
    run_all("trigger", trigger_scenarios());
}

#[test]
fn schedule_run() {
    run_all("schedule run", schedule_scenarios());
}

#[test]
fn parallel_schedule_run() {
    run_all(
        "schedule run, multi-threaded",
        parallel_schedule_scenarios(),
    );
}

#[test]
fn resource_scope() {
    run_all("resource_scope", resource_scope_scenarios());
}
