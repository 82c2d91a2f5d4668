//! The operation language of the model test, shared by `tests/model.rs`
//! (proptest generates the operations) and `fuzz/` (libFuzzer bytes are
//! decoded into operations by [`decode`]).
//!
//! A [`Harness`] owns a [`World`] and a plain reference [`Model`]: a map
//! from entity to one optional value per component type, with the
//! `Added`/`Changed` state of each value since the last `clear_trackers`.
//! [`Harness::apply`] runs one [`Op`] on both; [`Harness::check`] then
//! compares every entity handle ever seen (live and stale), every
//! component value, the entity count, the result of every query and the
//! drop count of every drop-tracked value, and calls
//! `World::check_integrity`. [`Harness::finish`] drops the world and checks
//! that every tracked value was dropped exactly once.
//!
//! The file has no dependency besides `ecs` and `std`, so the fuzz crate
//! includes it with `#[path]`.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

use ecs::prelude::*;
use ecs::ptr::OwningPtr;
use ecs::query::QueryEntityError;
use ecs::system::CommandQueue;
use ecs::world::WorldSnapshot;

// ---- component types ------------------------------------------------------------------

/// The number of component types in the language.
pub const COMPONENT_TYPES: usize = 10;

/// Their names, by index (for messages).
pub const NAMES: [&str; COMPONENT_TYPES] = [
    "Plain",
    "SparsePlain",
    "Marker",
    "SparseMarker",
    "Aligned",
    "SparseAligned",
    "Tracked",
    "SparseTracked",
    "Name",
    "Big",
];

/// Which component types are zero-sized (their model value is always 0).
pub const ZERO_SIZED: [bool; COMPONENT_TYPES] = [
    false, false, true, true, false, false, false, false, false, false,
];

/// Which component types carry a drop-tracked payload.
pub const TRACKED: [bool; COMPONENT_TYPES] = [
    false, false, false, false, false, false, true, true, false, false,
];

/// Counts drops per tracked id.
#[derive(Clone, Default)]
pub struct DropLog(Arc<Mutex<Vec<u32>>>);

impl DropLog {
    fn record(&self, tracked_id: u32) {
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let i = tracked_id as usize;
        if counts.len() <= i {
            counts.resize(i + 1, 0);
        }
        counts[i] += 1;
    }

    /// How often each tracked id was dropped, by id.
    pub fn counts(&self) -> Vec<u32> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A drop-counting payload. A clone (a snapshot's) counts under the same
/// tracked id: the model counts its copies.
#[derive(Clone)]
pub struct DropTracker {
    tracked_id: u32,
    log: DropLog,
}

impl Drop for DropTracker {
    fn drop(&mut self) {
        self.log.record(self.tracked_id);
    }
}

/// Table, plain.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot)]
pub struct Plain(pub u32);

/// Sparse set, plain.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot, storage = "SparseSet")]
pub struct SparsePlain(pub u64);

/// Table, zero-sized.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot)]
pub struct Marker;

/// Sparse set, zero-sized.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot, storage = "SparseSet")]
pub struct SparseMarker;

/// Table, over-aligned.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot)]
#[repr(align(64))]
pub struct Aligned(pub u32);

/// Sparse set, over-aligned.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot, storage = "SparseSet")]
#[repr(align(64))]
pub struct SparseAligned(pub u32, pub u8);

/// Table, drop-counting.
#[derive(Component, Clone)]
#[component(snapshot)]
pub struct Tracked {
    pub val: u32,
    t: DropTracker,
}

/// Sparse set, drop-counting.
#[derive(Component, Clone)]
#[component(snapshot, storage = "SparseSet")]
pub struct SparseTracked {
    pub val: u32,
    t: DropTracker,
}

/// Table, owns a heap `String`.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot)]
pub struct Name(pub String);

/// Table, 1 KiB.
#[derive(Component, Clone)]
#[component(snapshot)]
pub struct Big(pub [u8; 1024]);

/// The identity of one value: its number and, for tracked types, its
/// tracked id (0 otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    pub val: u32,
    pub tracked_id: u32,
}

/// One optional value per component type.
pub type Cells = [Option<Cell>; COMPONENT_TYPES];

/// A component type of the language.
pub trait ModelComponent: Component<Mutability = ecs::component::Mutable> + Sized {
    /// Its index in [`NAMES`].
    const INDEX: usize;
    /// Builds a value.
    fn make(val: u32, tracked_id: u32, log: &DropLog) -> Self;
    /// The value's number (checks the value's internal consistency and
    /// alignment on the way).
    fn val(&self) -> u32;
    /// The tracked id, 0 for untracked types.
    fn tracked_id(&self) -> u32 {
        0
    }
    /// Overwrites the value's number (by default, by building a new
    /// untracked value in its place).
    fn set_val(&mut self, val: u32) {
        *self = Self::make(val, 0, &DropLog::default());
    }
    /// The value's identity.
    fn cell(&self) -> Cell {
        Cell {
            val: self.val(),
            tracked_id: self.tracked_id(),
        }
    }
}

fn assert_aligned<T>(value: &T) {
    let addr = value as *const T as usize;
    assert_eq!(
        addr % std::mem::align_of::<T>(),
        0,
        "a {} lives at a misaligned address {addr:#x}",
        std::any::type_name::<T>()
    );
}

/// Implements [`ModelComponent`] for one component type: `make` builds a value from
/// its number, tracked id and drop log, `val` reads the number back
/// (checking the value on the way), and the optional `tracked_id` and `set_val`
/// replace the trait's defaults (untracked, overwrite by rebuilding).
macro_rules! model_component {
    (
        $ty:ident = $idx:literal,
        make: |$val:pat_param, $tracked_id:pat_param, $log:pat_param| $make:expr,
        val: |$this:ident| $read:expr
        $(, tracked_id: |$tid_this:ident| $tid_read:expr)?
        $(, set_val: |$set_this:ident, $set_val:ident| $set:expr)?
        $(,)?
    ) => {
        impl ModelComponent for $ty {
            const INDEX: usize = $idx;
            fn make($val: u32, $tracked_id: u32, $log: &DropLog) -> Self {
                $make
            }
            fn val(&self) -> u32 {
                let $this = self;
                $read
            }
            $(
                fn tracked_id(&self) -> u32 {
                    let $tid_this = self;
                    $tid_read
                }
            )?
            $(
                fn set_val(&mut self, $set_val: u32) {
                    let $set_this = self;
                    $set
                }
            )?
        }
    };
}

model_component! {
    Plain = 0,
    make: |val, _, _| Plain(val),
    val: |this| this.0,
}

model_component! {
    SparsePlain = 1,
    make: |val, _, _| SparsePlain(u64::from(val) << 32 | u64::from(!val)),
    val: |this| {
        let val = (this.0 >> 32) as u32;
        assert_eq!(this.0 as u32, !val, "SparsePlain value torn: {:#x}", this.0);
        val
    },
}

model_component! {
    Marker = 2,
    make: |_, _, _| Marker,
    val: |this| {
        assert_aligned(this);
        0
    },
}

model_component! {
    SparseMarker = 3,
    make: |_, _, _| SparseMarker,
    val: |this| {
        assert_aligned(this);
        0
    },
}

model_component! {
    Aligned = 4,
    make: |val, _, _| Aligned(val),
    val: |this| {
        assert_aligned(this);
        this.0
    },
}

model_component! {
    SparseAligned = 5,
    make: |val, _, _| SparseAligned(val, val as u8 ^ 0x5a),
    val: |this| {
        assert_aligned(this);
        assert_eq!(this.1, this.0 as u8 ^ 0x5a, "SparseAligned value torn");
        this.0
    },
}

model_component! {
    Tracked = 6,
    make: |val, tracked_id, log| Tracked {
        val,
        t: DropTracker {
            tracked_id,
            log: log.clone(),
        },
    },
    val: |this| this.val,
    tracked_id: |this| this.t.tracked_id,
    set_val: |this, val| this.val = val,
}

model_component! {
    SparseTracked = 7,
    make: |val, tracked_id, log| SparseTracked {
        val,
        t: DropTracker {
            tracked_id,
            log: log.clone(),
        },
    },
    val: |this| this.val,
    tracked_id: |this| this.t.tracked_id,
    set_val: |this, val| this.val = val,
}

model_component! {
    Name = 8,
    make: |val, _, _| Name(format!("name-{val}")),
    val: |this| this
        .0
        .strip_prefix("name-")
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("Name value corrupt: {:?}", this.0)),
    // In place: the heap text is rewritten, not reallocated.
    set_val: |this, val| {
        use std::fmt::Write;
        this.0.clear();
        write!(this.0, "name-{val}").unwrap();
    },
}

model_component! {
    Big = 9,
    make: |val, _, _| {
        let mut bytes = [0u8; 1024];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (val as u8).wrapping_add((i as u8).wrapping_mul(31));
        }
        bytes[..4].copy_from_slice(&val.to_le_bytes());
        bytes[1020..].copy_from_slice(&val.to_be_bytes());
        Big(bytes)
    },
    val: |this| {
        let val = u32::from_le_bytes(this.0[..4].try_into().unwrap());
        let expected = <Big as ModelComponent>::make(val, 0, &DropLog::default());
        assert!(this.0 == expected.0, "Big value {val} corrupt");
        val
    },
}

// ---- bundles ----------------------------------------------------------------------------

/// A bundle of the language: its component indices, how to build it from
/// prepared cells and how to read a taken one back.
pub trait ModelBundle: Bundle + ecs::bundle::BundleFromComponents + Sized {
    /// Appends the component indices, in order.
    fn comps(out: &mut Vec<usize>);
    /// Builds the bundle from the prepared cell of each of its components.
    fn make(cells: &Cells, log: &DropLog) -> Self;
    /// Appends the identity of each value.
    fn read(&self, out: &mut Vec<(usize, Cell)>);
}

macro_rules! model_bundle_of_component {
    ($($t:ty),*) => {$(
        impl ModelBundle for $t {
            fn comps(out: &mut Vec<usize>) {
                out.push(<$t as ModelComponent>::INDEX);
            }
            fn make(cells: &Cells, log: &DropLog) -> Self {
                let c = cells[<$t as ModelComponent>::INDEX].expect("cell prepared for every bundle component");
                <$t as ModelComponent>::make(c.val, c.tracked_id, log)
            }
            fn read(&self, out: &mut Vec<(usize, Cell)>) {
                out.push((<$t as ModelComponent>::INDEX, self.cell()));
            }
        }
    )*};
}
model_bundle_of_component!(
    Plain,
    SparsePlain,
    Marker,
    SparseMarker,
    Aligned,
    SparseAligned,
    Tracked,
    SparseTracked,
    Name,
    Big
);

macro_rules! model_bundle_of_tuple {
    ($($n:ident),*) => {
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        impl<$($n: ModelBundle),*> ModelBundle for ($($n,)*) {
            fn comps(out: &mut Vec<usize>) {
                $($n::comps(out);)*
            }
            fn make(cells: &Cells, log: &DropLog) -> Self {
                ($($n::make(cells, log),)*)
            }
            fn read(&self, out: &mut Vec<(usize, Cell)>) {
                let ($($n,)*) = self;
                $($n.read(out);)*
            }
        }
    };
}
model_bundle_of_tuple!();
model_bundle_of_tuple!(A, B);
model_bundle_of_tuple!(A, B, C);
model_bundle_of_tuple!(A, B, C, D);
model_bundle_of_tuple!(A, B, C, D, E, F, G, H, I, J);

/// Something done with one static bundle type of the catalogue.
pub trait BundleVisitor {
    type Out;
    fn visit<B: ModelBundle>(self) -> Self::Out;
}

/// The number of bundle shapes in the catalogue.
pub const BUNDLES: u8 = 20;

/// Calls `v` with the bundle type number `i` of the catalogue: each single
/// component, some pairs and triples mixing storages, a nested tuple, all
/// ten at once, and the empty bundle.
pub fn with_bundle<V: BundleVisitor>(i: u8, v: V) -> V::Out {
    match i % BUNDLES {
        0 => v.visit::<Plain>(),
        1 => v.visit::<SparsePlain>(),
        2 => v.visit::<Marker>(),
        3 => v.visit::<SparseMarker>(),
        4 => v.visit::<Aligned>(),
        5 => v.visit::<SparseAligned>(),
        6 => v.visit::<Tracked>(),
        7 => v.visit::<SparseTracked>(),
        8 => v.visit::<Name>(),
        9 => v.visit::<Big>(),
        10 => v.visit::<(Plain, SparsePlain)>(),
        11 => v.visit::<(Marker, Tracked, Name)>(),
        12 => v.visit::<(Aligned, SparseAligned, SparseTracked)>(),
        13 => v.visit::<(Big, SparseMarker)>(),
        14 => v.visit::<((Plain, SparsePlain), (Tracked, SparseTracked))>(),
        15 => v.visit::<(
            Plain,
            SparsePlain,
            Marker,
            SparseMarker,
            Aligned,
            SparseAligned,
            Tracked,
            SparseTracked,
            Name,
            Big,
        )>(),
        16 => v.visit::<(Name, Big, Aligned)>(),
        17 => v.visit::<(SparseMarker, SparsePlain)>(),
        18 => v.visit::<()>(),
        _ => v.visit::<(SparseTracked, (Marker, (Plain, Big)))>(),
    }
}

/// The component indices of catalogue bundle `i`.
pub fn bundle_comps(i: u8) -> Vec<usize> {
    struct Comps;
    impl BundleVisitor for Comps {
        type Out = Vec<usize>;
        fn visit<B: ModelBundle>(self) -> Vec<usize> {
            let mut out = Vec::new();
            B::comps(&mut out);
            out
        }
    }
    with_bundle(i, Comps)
}

/// Something done with one component type.
pub trait CompVisitor {
    type Out;
    fn visit<T: ModelComponent>(self) -> Self::Out;
}

/// Calls `v` with component type number `i`.
pub fn with_comp<V: CompVisitor>(i: usize, v: V) -> V::Out {
    match i % COMPONENT_TYPES {
        0 => v.visit::<Plain>(),
        1 => v.visit::<SparsePlain>(),
        2 => v.visit::<Marker>(),
        3 => v.visit::<SparseMarker>(),
        4 => v.visit::<Aligned>(),
        5 => v.visit::<SparseAligned>(),
        6 => v.visit::<Tracked>(),
        7 => v.visit::<SparseTracked>(),
        8 => v.visit::<Name>(),
        _ => v.visit::<Big>(),
    }
}

// ---- operations -----------------------------------------------------------------------

/// An entity handle: an index into every handle the run has seen (live or
/// stale); one extra slot past the end is a handle that was never spawned.
pub type Target = u16;

/// An operation on the world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `world.spawn(bundle)`.
    Spawn { bundle: u8, val: u32 },
    /// `world.spawn_empty()`.
    SpawnEmpty,
    /// `world.spawn_batch(..)` of `n` bundles; `exact`: an exact-size
    /// iterator (else one with no size hint); `read`: collect the ids (else
    /// drop the returned iterator unread: every entity is spawned anyway).
    SpawnBatch {
        bundle: u8,
        n: u8,
        val: u32,
        exact: bool,
        read: bool,
    },
    /// `entity_mut(e).insert(bundle)`: new components and replacement.
    Insert { e: Target, bundle: u8, val: u32 },
    /// `entity_mut(e).insert_if_new(bundle)`.
    InsertIfNew { e: Target, bundle: u8, val: u32 },
    /// `entity_mut(e).remove::<bundle>()`.
    Remove { e: Target, bundle: u8 },
    /// `entity_mut(e).take::<bundle>()`, all or nothing.
    Take { e: Target, bundle: u8 },
    /// `insert(a).remove::<b>().insert_if_new(a)` on one handle, checking
    /// the handle's view after the chain.
    Chain { e: Target, a: u8, b: u8, val: u32 },
    /// `world.despawn(e)` or (`handle`) `entity_mut(e).despawn()`.
    Despawn { e: Target, handle: bool },
    /// `world.clear_entities()`.
    ClearEntities,
    /// `get_ref` of one component, checking `is_added`/`is_changed`.
    Get { e: Target, comp: u8 },
    /// `get_mut` of one component (through the world or the entity
    /// handle), checking its ticks; writes `val` if `write`.
    GetMut {
        e: Target,
        comp: u8,
        val: u32,
        write: bool,
        handle: bool,
    },
    /// Writes through `iter_mut` (or `par_iter_mut`) of
    /// `(Entity, &mut Plain, Option<&mut SparseAligned>)`.
    QueryWrite { val: u32, par: bool },
    /// `QueryState::get` of one query for one entity.
    QueryGet { q: u8, e: Target },
    /// `get_many_mut([a, b])` of `(&mut Plain, &SparsePlain)`-less `&mut Plain` query,
    /// writing `val` into both.
    GetManyMut { a: Target, b: Target, val: u32 },
    /// `world.clear_trackers()`.
    ClearTrackers,
    /// `world.snapshot()`, kept (replacing the one kept before) with the
    /// model's copy.
    Snapshot,
    /// `world.restore(..)` of the kept snapshot (nothing without one): the
    /// world must equal the model's copy, and handles seen since are
    /// forgotten, since the restored allocator hands them out again.
    Restore,
    /// Commands queued on a `CommandQueue`, applied at the end of the op.
    Commands(Vec<QueuedCommand>),
    /// Makes `parent` the parent of `e`: `entity_mut(e).insert(ChildOf)`,
    /// or (`add_child`, when both are live) `entity_mut(parent).add_child`.
    /// With `down`, the parent is instead one of `e`'s descendants (by
    /// `parent` as an index), when it has any: a cycle. A dead parent, the
    /// entity itself or a descendant is refused and leaves `e` with no
    /// parent.
    SetParent {
        e: Target,
        parent: Target,
        add_child: bool,
        down: bool,
    },
    /// `entity_mut(e).remove::<ChildOf>()`.
    RemoveParent { e: Target },
    /// One component by id: `kind` 0 reads through `get_by_id`, 1 writes
    /// `val` through `get_mut_by_id`, 2 is `remove_by_id`, 3 inserts a new
    /// value through `insert_by_id`.
    ById {
        e: Target,
        comp: u8,
        kind: u8,
        val: u32,
    },
    /// A bulk change to every entity with component `filter`: `kind` 0 is
    /// `insert_all_with` of `bundle` (a value per entity), 1 `remove_all`
    /// of `bundle`, 2 `despawn_all` (descendants go too).
    Bulk {
        filter: u8,
        bundle: u8,
        kind: u8,
        val: u32,
    },
}

/// An entity for a command: a handle as for [`Target`], or (`New`) one
/// spawned by an earlier command of the same queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandTarget {
    Old(Target),
    New(u8),
}

/// One command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueuedCommand {
    Spawn {
        bundle: u8,
        val: u32,
    },
    SpawnEmpty,
    Insert {
        e: CommandTarget,
        bundle: u8,
        val: u32,
    },
    InsertIfNew {
        e: CommandTarget,
        bundle: u8,
        val: u32,
    },
    Remove {
        e: CommandTarget,
        bundle: u8,
    },
    Despawn {
        e: CommandTarget,
    },
}

/// The number of queries of the catalogue.
pub const QUERIES: u8 = 12;

// ---- decoding bytes (the fuzzer's input) ------------------------------------------------

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes([self.u8()?, self.u8()?]))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from(self.u16()?) | u32::from(self.u16()?) << 16)
    }
    fn bool(&mut self) -> Option<bool> {
        Some(self.u8()? & 1 == 1)
    }
    fn command_target(&mut self) -> Option<CommandTarget> {
        let b = self.u8()?;
        Some(if b & 0x80 != 0 {
            CommandTarget::New(b & 0x7f)
        } else {
            CommandTarget::Old(u16::from(b) << 8 | u16::from(self.u8()?))
        })
    }
    fn command(&mut self) -> Option<QueuedCommand> {
        Some(match self.u8()? % 6 {
            0 => QueuedCommand::Spawn {
                bundle: self.u8()?,
                val: self.u32()?,
            },
            1 => QueuedCommand::SpawnEmpty,
            2 => QueuedCommand::Insert {
                e: self.command_target()?,
                bundle: self.u8()?,
                val: self.u32()?,
            },
            3 => QueuedCommand::InsertIfNew {
                e: self.command_target()?,
                bundle: self.u8()?,
                val: self.u32()?,
            },
            4 => QueuedCommand::Remove {
                e: self.command_target()?,
                bundle: self.u8()?,
            },
            _ => QueuedCommand::Despawn {
                e: self.command_target()?,
            },
        })
    }
    fn op(&mut self) -> Option<Op> {
        Some(match self.u8()? % 24 {
            0 => Op::Spawn {
                bundle: self.u8()?,
                val: self.u32()?,
            },
            1 => Op::SpawnEmpty,
            2 => Op::SpawnBatch {
                bundle: self.u8()?,
                n: self.u8()? % 17,
                val: self.u32()?,
                exact: self.bool()?,
                read: self.bool()?,
            },
            3 => Op::Insert {
                e: self.u16()?,
                bundle: self.u8()?,
                val: self.u32()?,
            },
            4 => Op::InsertIfNew {
                e: self.u16()?,
                bundle: self.u8()?,
                val: self.u32()?,
            },
            5 => Op::Remove {
                e: self.u16()?,
                bundle: self.u8()?,
            },
            6 => Op::Take {
                e: self.u16()?,
                bundle: self.u8()?,
            },
            7 => Op::Chain {
                e: self.u16()?,
                a: self.u8()?,
                b: self.u8()?,
                val: self.u32()?,
            },
            8 => Op::Despawn {
                e: self.u16()?,
                handle: self.bool()?,
            },
            // Rare: most inputs would otherwise keep nothing alive.
            9 => {
                if self.u8()? < 16 {
                    Op::ClearEntities
                } else {
                    Op::SpawnEmpty
                }
            }
            10 => Op::Get {
                e: self.u16()?,
                comp: self.u8()?,
            },
            11 => Op::GetMut {
                e: self.u16()?,
                comp: self.u8()?,
                val: self.u32()?,
                write: self.bool()?,
                handle: self.bool()?,
            },
            12 => Op::QueryWrite {
                val: self.u32()?,
                par: self.bool()?,
            },
            13 => Op::QueryGet {
                q: self.u8()?,
                e: self.u16()?,
            },
            14 => Op::GetManyMut {
                a: self.u16()?,
                b: self.u16()?,
                val: self.u32()?,
            },
            15 => Op::ClearTrackers,
            17 => Op::SetParent {
                e: self.u16()?,
                parent: self.u16()?,
                add_child: self.bool()?,
                down: self.bool()?,
            },
            18 => Op::RemoveParent { e: self.u16()? },
            19 => Op::ById {
                e: self.u16()?,
                comp: self.u8()?,
                kind: self.u8()? % 4,
                val: self.u32()?,
            },
            20 => Op::Bulk {
                filter: self.u8()?,
                bundle: self.u8()?,
                kind: self.u8()? % 3,
                val: self.u32()?,
            },
            16 => {
                let n = self.u8()? % 9;
                let mut queued = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    queued.push(self.command()?);
                }
                Op::Commands(queued)
            }
            21 => Op::Snapshot,
            22 => Op::Restore,
            _ => Op::Spawn {
                bundle: self.u8()?,
                val: self.u32()?,
            },
        })
    }
}

/// Decodes bytes into operations (at most `max_ops`); a truncated last
/// operation is dropped.
pub fn decode(data: &[u8], max_ops: usize) -> Vec<Op> {
    let mut bytes = Bytes(data);
    let mut ops = Vec::new();
    while ops.len() < max_ops {
        match bytes.op() {
            Some(op) => ops.push(op),
            None => break,
        }
    }
    ops
}

// ---- the reference model --------------------------------------------------------------

/// A value in the model: its identity and its change state since the last
/// `clear_trackers`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelCell {
    pub cell: Cell,
    pub added: bool,
    pub changed: bool,
}

/// One entity's values in the model.
pub type ModelRow = [Option<ModelCell>; COMPONENT_TYPES];

/// The reference model: live entities and their values, and how often
/// each tracked value must have been dropped so far.
#[derive(Default, Debug)]
pub struct Model {
    pub live: BTreeMap<Entity, ModelRow>,
    pub expected_drops: Vec<u32>,
    /// `ChildOf`: each child's parent.
    pub parent: BTreeMap<Entity, Entity>,
    /// `Children`: each parent's children in insertion order (never empty).
    pub children: BTreeMap<Entity, Vec<Entity>>,
}

impl Model {
    fn drop_cell(&mut self, cell: Cell) {
        if cell.tracked_id != 0 {
            let i = cell.tracked_id as usize;
            if self.expected_drops.len() <= i {
                self.expected_drops.resize(i + 1, 0);
            }
            self.expected_drops[i] += 1;
        }
    }

    fn spawn(&mut self, e: Entity, cells: &Cells) {
        let mut row: ModelRow = [None; COMPONENT_TYPES];
        for (slot, cell) in row.iter_mut().zip(cells) {
            *slot = cell.map(|cell| ModelCell {
                cell,
                added: true,
                changed: true,
            });
        }
        let old = self.live.insert(e, row);
        assert!(
            old.is_none(),
            "entity {e:?} spawned while live in the model"
        );
    }

    /// Insert (`keep`: insert_if_new) into a live entity.
    fn insert(&mut self, e: Entity, cells: &Cells, keep: bool) {
        let mut dropped = Vec::new();
        let row = self.live.get_mut(&e).expect("insert into a live entity");
        for (slot, cell) in row.iter_mut().zip(cells) {
            let Some(cell) = *cell else { continue };
            match slot {
                // insert_if_new: the old value stays, the new one is dropped.
                Some(_) if keep => dropped.push(cell),
                Some(old) => {
                    dropped.push(old.cell);
                    old.cell = cell;
                    old.changed = true;
                }
                None => {
                    *slot = Some(ModelCell {
                        cell,
                        added: true,
                        changed: true,
                    })
                }
            }
        }
        for cell in dropped {
            self.drop_cell(cell);
        }
    }

    fn remove(&mut self, e: Entity, comps: &[usize]) {
        let row = self.live.get_mut(&e).expect("remove from a live entity");
        let mut dropped = Vec::new();
        for &c in comps {
            if let Some(old) = row[c].take() {
                dropped.push(old.cell);
            }
        }
        for cell in dropped {
            self.drop_cell(cell);
        }
    }

    /// Despawns `e` and (`Children` despawns what it lists) every
    /// descendant.
    fn despawn(&mut self, e: Entity) -> bool {
        let Some(row) = self.live.remove(&e) else {
            return false;
        };
        for cell in row.iter().flatten() {
            self.drop_cell(cell.cell);
        }
        self.unparent(e);
        for child in self.children.remove(&e).unwrap_or_default() {
            self.parent.remove(&child);
            self.despawn(child);
        }
        true
    }

    /// Every descendant of `e`, depth first.
    fn descendants(&self, e: Entity) -> Vec<Entity> {
        let mut out = Vec::new();
        let mut stack = vec![e];
        while let Some(next) = stack.pop() {
            for &child in self.children.get(&next).into_iter().flatten() {
                out.push(child);
                stack.push(child);
            }
        }
        out
    }

    /// Takes `e` out of its parent's children.
    fn unparent(&mut self, e: Entity) {
        let Some(parent) = self.parent.remove(&e) else {
            return;
        };
        let list = self
            .children
            .get_mut(&parent)
            .expect("a parent lists its child");
        list.retain(|&c| c != e);
        if list.is_empty() {
            self.children.remove(&parent);
        }
    }

    /// `ChildOf(parent)` inserted on live `e`: the old link goes, and the
    /// new one is kept unless the parent is dead, `e` itself or below `e`.
    fn set_parent(&mut self, e: Entity, parent: Entity) {
        self.unparent(e);
        if parent == e || !self.live.contains_key(&parent) {
            return;
        }
        let mut up = Some(parent);
        while let Some(ancestor) = up {
            if ancestor == e {
                return;
            }
            up = self.parent.get(&ancestor).copied();
        }
        self.parent.insert(e, parent);
        self.children.entry(parent).or_default().push(e);
    }

    fn val(row: &ModelRow, c: usize) -> Option<u32> {
        row[c].map(|m| m.cell.val)
    }

    fn has(row: &ModelRow, c: usize) -> bool {
        row[c].is_some()
    }

    /// What query `q` of the catalogue yields for an entity, if it matches.
    pub fn query_row(q: u8, row: &ModelRow) -> Option<[Option<u32>; 3]> {
        let v = |c| Self::val(row, c);
        let has = |c| Self::has(row, c);
        let changed = |c: usize| row[c].is_some_and(|m| m.changed);
        let added = |c: usize| row[c].is_some_and(|m| m.added);
        match q % QUERIES {
            // (Entity, &Plain)
            0 => has(0).then(|| [v(0), None, None]),
            // Entity, (With<SparsePlain>, Without<Marker>)
            1 => (has(1) && !has(2)).then_some([None; 3]),
            // (Entity, &Name, Option<&SparseTracked>)
            2 => has(8).then(|| [v(8), v(7), None]),
            // (Entity, &Aligned), Changed<Aligned>
            3 => changed(4).then(|| [v(4), None, None]),
            // Entity, Added<SparseTracked>
            4 => added(7).then_some([None; 3]),
            // (Entity, Option<&Big>, Option<&SparseAligned>)
            5 => Some([v(9), v(5), None]),
            // (Entity, &SparsePlain), Changed<SparsePlain>
            6 => changed(1).then(|| [v(1), None, None]),
            // (Entity, &Tracked), (With<SparseMarker>, Without<Name>)
            7 => (has(6) && has(3) && !has(8)).then(|| [v(6), None, None]),
            // Entity, Or<(With<Marker>, With<SparseMarker>)>
            8 => (has(2) || has(3)).then_some([None; 3]),
            // (Entity, Has<Big>), Without<Plain>
            9 => (!has(0)).then(|| [Some(u32::from(has(9))), None, None]),
            // Entity, (Changed<Tracked>, With<SparsePlain>)
            10 => (changed(6) && has(1)).then_some([None; 3]),
            // (Entity, Option<&Marker>, Ref<SparseAligned>) reporting is_added/is_changed
            _ => has(5).then(|| {
                [
                    v(2),
                    Some(u32::from(added(5)) << 1 | u32::from(changed(5))),
                    v(5),
                ]
            }),
        }
    }

    /// Every query's sorted result set.
    pub fn query_results(&self, q: u8) -> Vec<QueryRow> {
        self.live
            .iter()
            .filter_map(|(&e, row)| Self::query_row(q, row).map(|r| (e, r)))
            .collect()
    }
}

/// One item of a catalogue query: the entity and up to three numbers.
pub type QueryRow = (Entity, [Option<u32>; 3]);

// ---- the queries --------------------------------------------------------------------

type MutQuery = QueryState<(
    Entity,
    &'static mut Plain,
    Option<&'static mut SparseAligned>,
)>;

/// Every query of the catalogue, built once and kept for the whole run, so
/// their caches must follow the archetypes created meanwhile.
#[allow(clippy::type_complexity)] // the query types are the point
pub struct Queries {
    q0: QueryState<(Entity, &'static Plain)>,
    q1: QueryState<Entity, (With<SparsePlain>, Without<Marker>)>,
    q2: QueryState<(Entity, &'static Name, Option<&'static SparseTracked>)>,
    q3: QueryState<(Entity, &'static Aligned), Changed<Aligned>>,
    q4: QueryState<Entity, Added<SparseTracked>>,
    q5: QueryState<(Entity, Option<&'static Big>, Option<&'static SparseAligned>)>,
    q6: QueryState<(Entity, &'static SparsePlain), Changed<SparsePlain>>,
    q7: QueryState<(Entity, &'static Tracked), (With<SparseMarker>, Without<Name>)>,
    q8: QueryState<Entity, Or<(With<Marker>, With<SparseMarker>)>>,
    q9: QueryState<(Entity, Has<Big>), Without<Plain>>,
    q10: QueryState<Entity, (Changed<Tracked>, With<SparsePlain>)>,
    q11: QueryState<(Entity, Option<&'static Marker>, Ref<'static, SparseAligned>)>,
    write: MutQuery,
    plain_mut: QueryState<&'static mut Plain>,
    all: QueryState<Entity>,
}

fn ref_flags(r: &Ref<'_, SparseAligned>) -> u32 {
    u32::from(r.is_added()) << 1 | u32::from(r.is_changed())
}

/// Runs `$body` with `$item` bound to each item of a query (`iter`), or
/// to one entity's item (`get`).
macro_rules! each_query {
    ($qs:expr, $q:expr, |$st:ident, $f:ident| $body:expr) => {
        match $q % QUERIES {
            0 => {
                let $st = &mut $qs.q0;
                let $f = |(e, p): (Entity, &Plain)| (e, [Some(p.val()), None, None]);
                $body
            }
            1 => {
                let $st = &mut $qs.q1;
                let $f = |e: Entity| (e, [None; 3]);
                $body
            }
            2 => {
                let $st = &mut $qs.q2;
                let $f = |(e, n, d): (Entity, &Name, Option<&SparseTracked>)| {
                    (e, [Some(n.val()), d.map(|d| d.val()), None])
                };
                $body
            }
            3 => {
                let $st = &mut $qs.q3;
                let $f = |(e, a): (Entity, &Aligned)| (e, [Some(a.val()), None, None]);
                $body
            }
            4 => {
                let $st = &mut $qs.q4;
                let $f = |e: Entity| (e, [None; 3]);
                $body
            }
            5 => {
                let $st = &mut $qs.q5;
                let $f = |(e, b, s): (Entity, Option<&Big>, Option<&SparseAligned>)| {
                    (e, [b.map(|b| b.val()), s.map(|s| s.val()), None])
                };
                $body
            }
            6 => {
                let $st = &mut $qs.q6;
                let $f = |(e, s): (Entity, &SparsePlain)| (e, [Some(s.val()), None, None]);
                $body
            }
            7 => {
                let $st = &mut $qs.q7;
                let $f = |(e, d): (Entity, &Tracked)| (e, [Some(d.val()), None, None]);
                $body
            }
            8 => {
                let $st = &mut $qs.q8;
                let $f = |e: Entity| (e, [None; 3]);
                $body
            }
            9 => {
                let $st = &mut $qs.q9;
                let $f = |(e, h): (Entity, bool)| (e, [Some(u32::from(h)), None, None]);
                $body
            }
            10 => {
                let $st = &mut $qs.q10;
                let $f = |e: Entity| (e, [None; 3]);
                $body
            }
            _ => {
                let $st = &mut $qs.q11;
                let $f = |(e, z, s): (Entity, Option<&Marker>, Ref<'_, SparseAligned>)| {
                    (e, [z.map(|z| z.val()), Some(ref_flags(&s)), Some(s.val())])
                };
                $body
            }
        }
    };
}

impl Queries {
    fn new(world: &mut World) -> Self {
        Queries {
            q0: world.query(),
            q1: world.query_filtered(),
            q2: world.query(),
            q3: world.query_filtered(),
            q4: world.query_filtered(),
            q5: world.query(),
            q6: world.query_filtered(),
            q7: world.query_filtered(),
            q8: world.query_filtered(),
            q9: world.query_filtered(),
            q10: world.query_filtered(),
            q11: world.query(),
            write: world.query(),
            plain_mut: world.query(),
            all: world.query(),
        }
    }

    /// Query `q`'s items, sorted, checking on the way that `iter`,
    /// `for_each`, `count` and (for archetypal filters) `size_hint` agree.
    fn results(&mut self, q: u8, world: &World) -> Vec<QueryRow> {
        let archetypal = !matches!(q % QUERIES, 3 | 4 | 6 | 10);
        each_query!(self, q, |st, f| {
            let iter = st.iter(world);
            let hint = iter.size_hint();
            let mut rows: Vec<QueryRow> = iter.map(f).collect();
            let n = rows.len();
            if archetypal {
                assert_eq!(hint, (n, Some(n)), "size_hint of query {q}");
            } else {
                assert!(
                    hint.0 <= n && hint.1.is_none_or(|h| h >= n),
                    "size_hint {hint:?} of query {q} excludes its {n} items"
                );
            }
            assert_eq!(st.count(world), n, "count() of query {q}");
            let mut via_for_each = Vec::with_capacity(n);
            st.for_each(world, |item| via_for_each.push(f(item)));
            rows.sort();
            via_for_each.sort();
            assert_eq!(rows, via_for_each, "for_each and iter of query {q} differ");
            rows
        })
    }

    /// Query `q`'s item for one entity.
    fn get(&mut self, q: u8, world: &World, e: Entity) -> Result<QueryRow, QueryEntityError> {
        each_query!(self, q, |st, f| st.get(world, e).map(f))
    }
}

// ---- the harness -----------------------------------------------------------------------

/// A world, its reference model and every handle seen so far.
pub struct Harness {
    pub world: Option<World>,
    pub model: Model,
    /// Every entity handle ever handed out, in order (live and stale).
    pub pool: Vec<Entity>,
    pool_set: HashSet<Entity>,
    log: DropLog,
    next_tracked_id: u32,
    queries: Queries,
    /// The snapshot `Op::Snapshot` kept, with the model as it was then.
    saved: Option<Saved>,
    /// How many clones of each tracked value snapshots and restores made,
    /// by tracked id: each is dropped once too.
    clones: Vec<u32>,
    /// The number of operations applied.
    pub steps: usize,
}

/// A world snapshot and what the harness knew when it was taken.
struct Saved {
    snapshot: WorldSnapshot,
    live: BTreeMap<Entity, ModelRow>,
    parent: BTreeMap<Entity, Entity>,
    children: BTreeMap<Entity, Vec<Entity>>,
    pool: Vec<Entity>,
    pool_set: HashSet<Entity>,
}

/// Formats an entity the way error messages must name it.
fn named(e: Entity) -> String {
    format!("{e:?}")
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    pub fn new() -> Self {
        let mut world = World::new();
        // The model's commands aimed at an entity gone by the time they
        // apply do nothing: their errors are ignored (the default handler
        // panics, as bevy's does).
        world.insert_resource(ecs::error::FallbackErrorHandler(ecs::error::ignore));
        // The ten component types opt in on their type; the hierarchy here.
        world.register_snapshot::<ChildOf>();
        world.register_snapshot::<Children>();
        let queries = Queries::new(&mut world);
        Harness {
            world: Some(world),
            model: Model::default(),
            pool: Vec::new(),
            pool_set: HashSet::new(),
            log: DropLog::default(),
            next_tracked_id: 1,
            queries,
            saved: None,
            clones: Vec::new(),
            steps: 0,
        }
    }

    fn world(&mut self) -> &mut World {
        self.world.as_mut().expect("world alive")
    }

    /// Resolves a target: a seen handle, or one never spawned.
    pub fn target(&self, t: Target) -> Entity {
        let n = self.pool.len();
        let i = t as usize % (n + 1);
        if i == n {
            Entity::from_raw(3_000_000 + u32::from(t))
        } else {
            self.pool[i]
        }
    }

    fn adopt(&mut self, e: Entity) {
        assert!(
            self.pool_set.insert(e),
            "new entity {e:?} reuses a handle seen before (a stale handle would reach it)"
        );
        self.pool.push(e);
    }

    /// Fresh cells for the components of a bundle (tracked ones get new
    /// tracked ids).
    fn cells(&mut self, comps: &[usize], val: u32) -> Cells {
        let mut cells: Cells = [None; COMPONENT_TYPES];
        for &c in comps {
            let tracked_id = if TRACKED[c] {
                self.next_tracked_id += 1;
                self.next_tracked_id - 1
            } else {
                0
            };
            let val = if ZERO_SIZED[c] {
                0
            } else {
                val.wrapping_add(c as u32 * 7919)
            };
            cells[c] = Some(Cell { val, tracked_id });
        }
        cells
    }

    /// Runs one operation on the world and the model.
    pub fn apply(&mut self, op: &Op) {
        self.steps += 1;
        match *op {
            Op::Spawn { bundle, val } => {
                let comps = bundle_comps(bundle);
                let cells = self.cells(&comps, val);
                struct V<'a>(&'a mut World, &'a Cells, &'a DropLog);
                impl BundleVisitor for V<'_> {
                    type Out = Entity;
                    fn visit<B: ModelBundle>(self) -> Entity {
                        self.0.spawn(B::make(self.1, self.2)).id()
                    }
                }
                let log = self.log.clone();
                let e = with_bundle(bundle, V(self.world(), &cells, &log));
                self.adopt(e);
                self.model.spawn(e, &cells);
            }
            Op::SpawnEmpty => {
                let e = self.world().spawn_empty().id();
                self.adopt(e);
                self.model.spawn(e, &[None; COMPONENT_TYPES]);
            }
            Op::SpawnBatch {
                bundle,
                n,
                val,
                exact,
                read,
            } => self.spawn_batch(bundle, n, val, exact, read),
            Op::Insert { e, bundle, val } => self.insert(self.target(e), bundle, val, false),
            Op::InsertIfNew { e, bundle, val } => self.insert(self.target(e), bundle, val, true),
            Op::Remove { e, bundle } => {
                let e = self.target(e);
                let live = self.model.live.contains_key(&e);
                struct V<'a>(&'a mut World, Entity);
                impl BundleVisitor for V<'_> {
                    type Out = Result<(), String>;
                    fn visit<B: ModelBundle>(self) -> Result<(), String> {
                        let mut em = self.0.get_entity_mut(self.1).map_err(|e| e.to_string())?;
                        em.remove::<B>();
                        Ok(())
                    }
                }
                let result = with_bundle(bundle, V(self.world(), e));
                self.expect_live(e, live, result);
                if live {
                    self.model.remove(e, &bundle_comps(bundle));
                }
            }
            Op::Take { e, bundle } => self.take(self.target(e), bundle),
            Op::Chain { e, a, b, val } => self.chain(self.target(e), a, b, val),
            Op::Despawn { e, handle } => {
                let e = self.target(e);
                let live = self.model.live.contains_key(&e);
                let world = self.world();
                let despawned = if handle {
                    match world.get_entity_mut(e) {
                        Ok(em) => {
                            em.despawn();
                            true
                        }
                        Err(err) => {
                            assert!(err.to_string().contains(&named(e)), "{err}");
                            false
                        }
                    }
                } else {
                    world.despawn(e)
                };
                assert_eq!(despawned, live, "despawn({e:?}) result vs model");
                self.model.despawn(e);
            }
            Op::SetParent {
                e,
                parent,
                add_child,
                down,
            } => {
                let (e, handle) = (self.target(e), parent);
                let below = self.model.descendants(e);
                let parent = if down && !below.is_empty() {
                    below[handle as usize % below.len()]
                } else {
                    self.target(handle)
                };
                let live = self.model.live.contains_key(&e);
                let world = self.world();
                if add_child && live && world.get_entity(parent).is_ok() {
                    world.entity_mut(parent).add_child(e);
                } else {
                    let result = world
                        .get_entity_mut(e)
                        .map(|mut em| {
                            em.insert(ChildOf(parent));
                        })
                        .map_err(|err| err.to_string());
                    self.expect_live(e, live, result);
                }
                if live {
                    self.model.set_parent(e, parent);
                }
            }
            Op::RemoveParent { e } => {
                let e = self.target(e);
                let live = self.model.live.contains_key(&e);
                let result = self
                    .world()
                    .get_entity_mut(e)
                    .map(|mut em| {
                        em.remove::<ChildOf>();
                    })
                    .map_err(|err| err.to_string());
                self.expect_live(e, live, result);
                if live {
                    self.model.unparent(e);
                }
            }
            Op::ById { e, comp, kind, val } => self.by_id(
                self.target(e),
                comp as usize % COMPONENT_TYPES,
                kind % 4,
                val,
            ),
            Op::Bulk {
                filter,
                bundle,
                kind,
                val,
            } => self.bulk(filter as usize % COMPONENT_TYPES, bundle, kind % 3, val),
            Op::ClearEntities => {
                self.world().clear_entities();
                let all: Vec<Entity> = self.model.live.keys().copied().collect();
                for e in all {
                    self.model.despawn(e);
                }
            }
            Op::Get { e, comp } => {
                let e = self.target(e);
                let expected = self.model.live.get(&e).map(|row| {
                    row[comp as usize % COMPONENT_TYPES].map(|m| (m.cell, m.added, m.changed))
                });
                struct V<'a>(&'a World, Entity);
                impl CompVisitor for V<'_> {
                    type Out = Option<Option<(Cell, bool, bool)>>;
                    fn visit<T: ModelComponent>(self) -> Self::Out {
                        let er = self.0.get_entity(self.1).ok()?;
                        let r = er.get_ref::<T>();
                        assert_eq!(r.is_some(), er.contains::<T>(), "get_ref vs contains");
                        Some(r.map(|r| (r.cell(), r.is_added(), r.is_changed())))
                    }
                }
                let world = self.world.as_ref().expect("world alive");
                let got = with_comp(comp as usize, V(world, e));
                assert_eq!(
                    got,
                    expected,
                    "get_ref::<{}>({e:?}): (value, is_added, is_changed)",
                    NAMES[comp as usize % COMPONENT_TYPES]
                );
            }
            Op::GetMut {
                e,
                comp,
                val,
                write,
                handle,
            } => self.get_mut(
                self.target(e),
                comp as usize % COMPONENT_TYPES,
                val,
                write,
                handle,
            ),
            Op::QueryWrite { val, par } => {
                let world = self.world.as_mut().expect("world alive");
                let q = &mut self.queries.write;
                let write =
                    |(e, mut p, s): (Entity, Mut<'_, Plain>, Option<Mut<'_, SparseAligned>>)| {
                        p.set_val(val ^ e.index());
                        if let Some(mut s) = s {
                            s.set_val(val.wrapping_add(e.index()));
                        }
                    };
                if par && !cfg!(miri) {
                    q.par_iter_mut(world).for_each(write);
                } else if par {
                    q.for_each_mut(world, write);
                } else {
                    q.iter_mut(world).for_each(write);
                }
                for (e, row) in self.model.live.iter_mut() {
                    if let Some(p) = &mut row[0] {
                        p.cell.val = val ^ e.index();
                        p.changed = true;
                        if let Some(s) = &mut row[5] {
                            s.cell.val = val.wrapping_add(e.index());
                            s.changed = true;
                        }
                    }
                }
            }
            Op::QueryGet { q, e } => {
                let e = self.target(e);
                let world = self.world.as_ref().expect("world alive");
                let got = self.queries.get(q, world, e);
                let expected = match self.model.live.get(&e) {
                    None => Err(QueryEntityError::NoSuchEntity(e)),
                    Some(row) => Model::query_row(q, row)
                        .map(|r| (e, r))
                        .ok_or(QueryEntityError::QueryDoesNotMatch(e)),
                };
                assert_eq!(got, expected, "query {q} get({e:?})");
                if let Err(err) = got {
                    assert!(err.to_string().contains(&named(e)), "{err}");
                }
            }
            Op::GetManyMut { a, b, val } => {
                let (a, b) = (self.target(a), self.target(b));
                let check = |e: Entity| match self.model.live.get(&e) {
                    None => Err(QueryEntityError::NoSuchEntity(e)),
                    Some(row) if row[0].is_none() => Err(QueryEntityError::QueryDoesNotMatch(e)),
                    Some(_) => Ok(()),
                };
                let expected = if a == b {
                    Err(QueryEntityError::AliasedMutability(a))
                } else {
                    check(a).and(check(b))
                };
                let world = self.world.as_mut().expect("world alive");
                let got = match self.queries.plain_mut.get_many_mut(world, [a, b]) {
                    Ok([mut pa, mut pb]) => {
                        pa.set_val(val);
                        pb.set_val(!val);
                        Ok(())
                    }
                    Err(err) => Err(err),
                };
                assert_eq!(got, expected, "get_many_mut([{a:?}, {b:?}])");
                if got.is_ok() {
                    for (e, v) in [(a, val), (b, !val)] {
                        let p = self.model.live.get_mut(&e).unwrap()[0].as_mut().unwrap();
                        p.cell.val = v;
                        p.changed = true;
                    }
                }
            }
            Op::Snapshot => self.snapshot(),
            Op::Restore => self.restore(),
            Op::ClearTrackers => {
                self.world().clear_trackers();
                for row in self.model.live.values_mut() {
                    for m in row.iter_mut().flatten() {
                        m.added = false;
                        m.changed = false;
                    }
                }
            }
            Op::Commands(ref queued) => self.commands(queued),
        }
    }

    /// Asserts that a world call on `e` succeeded exactly when the model
    /// has `e` live, and that a refusal names the entity.
    fn expect_live(&self, e: Entity, live: bool, result: Result<(), String>) {
        match result {
            Ok(()) => assert!(live, "an operation on dead entity {e:?} was accepted"),
            Err(msg) => {
                assert!(
                    !live,
                    "an operation on live entity {e:?} was refused: {msg}"
                );
                assert!(msg.contains(&named(e)), "error does not name {e:?}: {msg}");
            }
        }
    }

    /// Counts one more clone of every tracked value in `rows`.
    fn count_clones<'a>(&mut self, rows: impl Iterator<Item = &'a ModelRow>) {
        for m in rows.flat_map(|row| row.iter().flatten()) {
            let id = m.cell.tracked_id as usize;
            if id != 0 {
                if self.clones.len() <= id {
                    self.clones.resize(id + 1, 0);
                }
                self.clones[id] += 1;
            }
        }
    }

    fn snapshot(&mut self) {
        // A kept snapshot is written over (`snapshot_into`, reusing its
        // memory), as a rollback ring does; the first is made fresh.
        let snapshot = match self.saved.take() {
            Some(old) => {
                let mut snapshot = old.snapshot;
                self.world().snapshot_into(&mut snapshot);
                for m in old.live.values().flat_map(|row| row.iter().flatten()) {
                    self.model.drop_cell(m.cell);
                }
                snapshot
            }
            None => self.world().snapshot(),
        };
        let live = self.model.live.clone();
        self.count_clones(live.values());
        self.saved = Some(Saved {
            snapshot,
            live,
            parent: self.model.parent.clone(),
            children: self.model.children.clone(),
            pool: self.pool.clone(),
            pool_set: self.pool_set.clone(),
        });
    }

    fn restore(&mut self) {
        let Some(saved) = self.saved.take() else {
            return;
        };
        let world = self.world.as_mut().expect("world alive");
        if let Err(err) = world.restore(&saved.snapshot) {
            panic!("restore refused with everything opted in: {err}");
        }
        let dropped: Vec<Cell> = self
            .model
            .live
            .values()
            .flat_map(|row| row.iter().flatten().map(|m| m.cell))
            .collect();
        for cell in dropped {
            self.model.drop_cell(cell);
        }
        self.count_clones(saved.live.values());
        self.model.live = saved.live.clone();
        self.model.parent = saved.parent.clone();
        self.model.children = saved.children.clone();
        self.pool = saved.pool.clone();
        self.pool_set = saved.pool_set.clone();
        self.saved = Some(saved);
    }

    fn spawn_batch(&mut self, bundle: u8, n: u8, val: u32, exact: bool, read: bool) {
        let comps = bundle_comps(bundle);
        let all_cells: Vec<Cells> = (0..n)
            .map(|i| self.cells(&comps, val.wrapping_add(u32::from(i) * 104_729)))
            .collect();
        struct V<'a>(&'a mut World, &'a [Cells], &'a DropLog, bool, bool);
        impl BundleVisitor for V<'_> {
            type Out = Option<Vec<Entity>>;
            fn visit<B: ModelBundle>(self) -> Option<Vec<Entity>> {
                let V(world, cells, log, exact, read) = self;
                let bundles: Vec<B> = cells.iter().map(|c| B::make(c, log)).collect();
                if exact {
                    let it = world.spawn_batch(bundles);
                    read.then(|| it.collect())
                } else {
                    // No size hint: a filter hides the length.
                    let it = world.spawn_batch(bundles.into_iter().filter(|_| true));
                    read.then(|| it.collect())
                }
            }
        }
        let log = self.log.clone();
        let got = with_bundle(
            bundle,
            V(
                self.world.as_mut().expect("world alive"),
                &all_cells,
                &log,
                exact,
                read,
            ),
        );
        let spawned = match got {
            Some(ids) => {
                assert_eq!(ids.len(), all_cells.len(), "spawn_batch yielded ids");
                ids.into_iter().zip(all_cells).collect::<Vec<_>>()
            }
            None => {
                // Dropped unread: find the new entities and pair them with
                // the bundles by value (the multisets must agree).
                let world = self.world.as_ref().expect("world alive");
                let mut new: Vec<Entity> = self
                    .queries
                    .all
                    .iter(world)
                    .filter(|e| !self.model.live.contains_key(e))
                    .collect();
                new.sort();
                assert_eq!(
                    new.len(),
                    all_cells.len(),
                    "spawn_batch dropped unread must still spawn every bundle"
                );
                let mut read_back: Vec<(Cells, Entity)> = new
                    .iter()
                    .map(|&e| (read_cells(world.entity(e)), e))
                    .collect();
                read_back.sort();
                let mut expected = all_cells.clone();
                expected.sort();
                let got: Vec<Cells> = read_back.iter().map(|(c, _)| *c).collect();
                assert_eq!(got, expected, "values spawned by an unread spawn_batch");
                read_back.into_iter().map(|(c, e)| (e, c)).collect()
            }
        };
        for (e, cells) in spawned {
            self.adopt(e);
            self.model.spawn(e, &cells);
        }
    }

    fn insert(&mut self, e: Entity, bundle: u8, val: u32, keep: bool) {
        let live = self.model.live.contains_key(&e);
        // Values are only built for a live entity; a refused insert never
        // sees them.
        let comps = bundle_comps(bundle);
        let cells = if live {
            self.cells(&comps, val)
        } else {
            [None; COMPONENT_TYPES]
        };
        struct V<'a>(&'a mut World, Entity, &'a Cells, &'a DropLog, bool);
        impl BundleVisitor for V<'_> {
            type Out = Result<(), String>;
            fn visit<B: ModelBundle>(self) -> Result<(), String> {
                let V(world, e, cells, log, keep) = self;
                let mut em = world.get_entity_mut(e).map_err(|e| e.to_string())?;
                let b = B::make(cells, log);
                if keep {
                    em.insert_if_new(b);
                } else {
                    em.insert(b);
                }
                Ok(())
            }
        }
        let log = self.log.clone();
        let result = with_bundle(
            bundle,
            V(
                self.world.as_mut().expect("world alive"),
                e,
                &cells,
                &log,
                keep,
            ),
        );
        self.expect_live(e, live, result);
        if live {
            self.model.insert(e, &cells, keep);
        }
    }

    fn take(&mut self, e: Entity, bundle: u8) {
        let live = self.model.live.contains_key(&e);
        struct V<'a>(&'a mut World, Entity);
        impl BundleVisitor for V<'_> {
            type Out = Result<Option<Vec<(usize, Cell)>>, String>;
            fn visit<B: ModelBundle>(self) -> Self::Out {
                let mut em = self.0.get_entity_mut(self.1).map_err(|e| e.to_string())?;
                Ok(em.take::<B>().map(|b| {
                    let mut out = Vec::new();
                    b.read(&mut out);
                    out
                    // `b` is dropped here: the model counts the drop.
                }))
            }
        }
        let result = with_bundle(bundle, V(self.world(), e));
        let taken = match result {
            Ok(t) => {
                self.expect_live(e, live, Ok(()));
                t
            }
            Err(msg) => {
                self.expect_live(e, live, Err(msg));
                return;
            }
        };
        let comps = bundle_comps(bundle);
        let row = self.model.live[&e];
        let has_all = comps.iter().all(|&c| row[c].is_some());
        match taken {
            None => assert!(
                !has_all,
                "take of {comps:?} refused though {e:?} has them all"
            ),
            Some(values) => {
                assert!(
                    has_all,
                    "take of {comps:?} from {e:?} succeeded without them all"
                );
                let expected: Vec<(usize, Cell)> =
                    comps.iter().map(|&c| (c, row[c].unwrap().cell)).collect();
                assert_eq!(values, expected, "values taken from {e:?}");
                self.model.remove(e, &comps);
            }
        }
    }

    fn chain(&mut self, e: Entity, a: u8, b: u8, val: u32) {
        let live = self.model.live.contains_key(&e);
        let (ca, cb) = (bundle_comps(a), bundle_comps(b));
        let (cells1, cells2) = if live {
            (self.cells(&ca, val), self.cells(&ca, val ^ 0xffff))
        } else {
            ([None; COMPONENT_TYPES], [None; COMPONENT_TYPES])
        };
        if live {
            self.model.insert(e, &cells1, false);
            self.model.remove(e, &cb);
            self.model.insert(e, &cells2, true);
        }
        let expected = self.model.live.get(&e).map(model_cells);
        let log = self.log.clone();
        let world = self.world.as_mut().expect("world alive");
        let result = match world.get_entity_mut(e) {
            Err(err) => Err(err.to_string()),
            Ok(mut em) => {
                struct InsertBundle<'a, 'w>(
                    &'a mut EntityWorldMut<'w>,
                    &'a Cells,
                    &'a DropLog,
                    bool,
                );
                impl BundleVisitor for InsertBundle<'_, '_> {
                    type Out = ();
                    fn visit<B: ModelBundle>(self) {
                        if self.3 {
                            self.0.insert_if_new(B::make(self.1, self.2));
                        } else {
                            self.0.insert(B::make(self.1, self.2));
                        }
                    }
                }
                struct RemoveBundle<'a, 'w>(&'a mut EntityWorldMut<'w>);
                impl BundleVisitor for RemoveBundle<'_, '_> {
                    type Out = ();
                    fn visit<B: ModelBundle>(self) {
                        self.0.remove::<B>();
                    }
                }
                with_bundle(a, InsertBundle(&mut em, &cells1, &log, false));
                with_bundle(b, RemoveBundle(&mut em));
                with_bundle(a, InsertBundle(&mut em, &cells2, &log, true));
                // The handle's own view after the chain.
                let seen = read_cells_mut(&em);
                assert_eq!(
                    Some(seen),
                    expected,
                    "the handle's view of {e:?} after a chain"
                );
                Ok(())
            }
        };
        self.expect_live(e, live, result);
    }

    fn get_mut(&mut self, e: Entity, comp: usize, val: u32, write: bool, handle: bool) {
        let expected = self
            .model
            .live
            .get(&e)
            .map(|row| row[comp].map(|m| (m.cell, m.added, m.changed)));
        struct V<'a>(&'a mut World, Entity, u32, bool, bool);
        impl CompVisitor for V<'_> {
            type Out = Option<Option<(Cell, bool, bool)>>;
            fn visit<T: ModelComponent>(self) -> Self::Out {
                let V(world, e, val, write, handle) = self;
                let mut em;
                let m = if handle {
                    em = world.get_entity_mut(e).ok()?;
                    em.get_mut::<T>()
                } else {
                    if !world.contains_entity(e) {
                        assert!(world.get_mut::<T>(e).is_none(), "get_mut of a dead entity");
                        return None;
                    }
                    world.get_mut::<T>(e)
                };
                Some(m.map(|mut m| {
                    let seen = (m.cell(), m.is_added(), m.is_changed());
                    if write {
                        m.set_val(val);
                    }
                    seen
                }))
            }
        }
        let world = self.world.as_mut().expect("world alive");
        let got = with_comp(comp, V(world, e, val, write, handle));
        assert_eq!(
            got, expected,
            "get_mut::<{}>({e:?}): (value, is_added, is_changed)",
            NAMES[comp]
        );
        if write {
            if let Some(Some(m)) = self.model.live.get_mut(&e).map(|row| &mut row[comp]) {
                if !ZERO_SIZED[comp] {
                    m.cell.val = val;
                }
                m.changed = true;
            }
        }
    }

    fn by_id(&mut self, e: Entity, comp: usize, kind: u8, val: u32) {
        let row = self.model.live.get(&e).copied();
        let expected = row.map(|row| row[comp].map(|m| (m.cell, m.added, m.changed)));
        let fresh = if kind == 3 && row.is_some() {
            let mut only = [None; COMPONENT_TYPES];
            only[comp] = self.cells(&[comp], val)[comp];
            Some(only)
        } else {
            None
        };
        struct V<'a>(
            &'a mut World,
            Entity,
            u8,
            u32,
            Option<&'a Cells>,
            &'a DropLog,
        );
        impl CompVisitor for V<'_> {
            type Out = Option<Option<(Cell, bool, bool)>>;
            fn visit<T: ModelComponent>(self) -> Self::Out {
                let V(world, e, kind, val, fresh, log) = self;
                let id = world.register_component::<T>();
                let mut em = match world.get_entity_mut(e) {
                    Ok(em) => em,
                    Err(err) => {
                        assert!(err.to_string().contains(&named(e)), "{err}");
                        return None;
                    }
                };
                let seen = match em.get_by_id(id) {
                    // SAFETY: `id` is `T`'s id, so the value is a `T`.
                    Ok(ptr) => Some(unsafe { ptr.deref::<T>() }.cell()),
                    Err(err) => {
                        // bevy's error carries only the id.
                        let msg = err.to_string();
                        assert!(msg.contains(&format!("{id:?}")), "{msg}");
                        None
                    }
                };
                match kind {
                    0 => Some(seen.map(|cell| (cell, false, false))),
                    1 => {
                        let Ok(m) = em.get_mut_by_id(id) else {
                            assert!(seen.is_none(), "get_mut_by_id refused a present value");
                            return Some(None);
                        };
                        // SAFETY: `id` is `T`'s id.
                        let mut m = unsafe { m.with_type::<T>() };
                        let flags = (m.cell(), m.is_added(), m.is_changed());
                        m.set_val(val);
                        Some(Some(flags))
                    }
                    2 => {
                        em.remove_by_id(id);
                        assert!(!em.contains::<T>(), "remove_by_id left the value");
                        Some(seen.map(|cell| (cell, false, false)))
                    }
                    _ => {
                        let cell = fresh.expect("cells for a live entity")[T::INDEX]
                            .expect("a cell for the component");
                        let value = T::make(cell.val, cell.tracked_id, log);
                        // SAFETY: `id` is `T`'s id and `value` a `T`, moved
                        // into the world by the call.
                        OwningPtr::make(value, |ptr| unsafe {
                            em.insert_by_id(id, ptr);
                        });
                        Some(seen.map(|cell| (cell, false, false)))
                    }
                }
            }
        }
        let log = self.log.clone();
        let world = self.world.as_mut().expect("world alive");
        let got = with_comp(comp, V(world, e, kind, val, fresh.as_ref(), &log));
        // Reads and removals check only the value; a write also the flags.
        let expected = if kind == 1 {
            expected
        } else {
            expected.map(|o| o.map(|(cell, _, _)| (cell, false, false)))
        };
        assert_eq!(got, expected, "by id, kind {kind}, {}({e:?})", NAMES[comp]);
        if row.is_none() {
            return;
        }
        match kind {
            1 => {
                if let Some(m) = self
                    .model
                    .live
                    .get_mut(&e)
                    .and_then(|row| row[comp].as_mut())
                {
                    if !ZERO_SIZED[comp] {
                        m.cell.val = val;
                    }
                    m.changed = true;
                }
            }
            2 => self.model.remove(e, &[comp]),
            3 => self.model.insert(e, &fresh.expect("cells"), false),
            _ => {}
        }
    }

    fn bulk(&mut self, filter: usize, bundle: u8, kind: u8, val: u32) {
        let matched: Vec<Entity> = self
            .model
            .live
            .iter()
            .filter(|(_, row)| row[filter].is_some())
            .map(|(&e, _)| e)
            .collect();
        let comps = bundle_comps(bundle);
        let cells: BTreeMap<Entity, Cells> = if kind == 0 {
            matched
                .iter()
                .map(|&e| (e, self.cells(&comps, val ^ e.index())))
                .collect()
        } else {
            BTreeMap::new()
        };
        struct F<'a>(
            &'a mut World,
            u8,
            u8,
            &'a BTreeMap<Entity, Cells>,
            &'a DropLog,
        );
        impl CompVisitor for F<'_> {
            type Out = usize;
            fn visit<T: ModelComponent>(self) -> usize {
                let F(world, bundle, kind, cells, log) = self;
                let mut state = world.query_filtered::<Entity, With<T>>();
                match kind {
                    0 => {
                        struct I<'a, T: Component>(
                            &'a mut World,
                            &'a mut QueryState<Entity, With<T>>,
                            &'a BTreeMap<Entity, Cells>,
                            &'a DropLog,
                        );
                        impl<T: Component> BundleVisitor for I<'_, T> {
                            type Out = usize;
                            fn visit<Bn: ModelBundle>(self) -> usize {
                                let I(world, state, cells, log) = self;
                                state.insert_all_with(world, |e| {
                                    let cells = cells.get(&e).unwrap_or_else(|| {
                                        panic!("insert_all_with made a bundle for {e:?}, unmatched in the model")
                                    });
                                    Bn::make(cells, log)
                                })
                            }
                        }
                        with_bundle(bundle, I(world, &mut state, cells, log))
                    }
                    1 => {
                        struct R<'a, T: Component>(
                            &'a mut World,
                            &'a mut QueryState<Entity, With<T>>,
                        );
                        impl<T: Component> BundleVisitor for R<'_, T> {
                            type Out = usize;
                            fn visit<Bn: ModelBundle>(self) -> usize {
                                self.1.remove_all::<Bn>(self.0)
                            }
                        }
                        with_bundle(bundle, R(world, &mut state))
                    }
                    _ => state.despawn_all(world),
                }
            }
        }
        let log = self.log.clone();
        let world = self.world.as_mut().expect("world alive");
        let count = with_comp(filter, F(world, bundle, kind, &cells, &log));
        let kinds = ["insert_all_with", "remove_all", "despawn_all"];
        assert_eq!(
            count,
            matched.len(),
            "{} over With<{}>: entities changed",
            kinds[kind as usize],
            NAMES[filter]
        );
        for e in matched {
            match kind {
                0 => self.model.insert(e, &cells[&e], false),
                1 => self.model.remove(e, &comps),
                _ => {
                    // A descendant despawned with an earlier match is gone.
                    self.model.despawn(e);
                }
            }
        }
    }

    fn commands(&mut self, queued: &[QueuedCommand]) {
        enum Pending {
            Spawn(Entity, Cells),
            Insert(Entity, Cells, bool),
            Remove(Entity, Vec<usize>),
            Despawn(Entity),
        }
        let log = self.log.clone();
        let mut queue = CommandQueue::default();
        let mut reserved: Vec<Entity> = Vec::new();
        let mut pending = Vec::new();
        // Cells are prepared first (they need `&mut self`), then queued.
        let mut prepared = Vec::new();
        for command in queued {
            prepared.push(match *command {
                QueuedCommand::Spawn { bundle, val }
                | QueuedCommand::Insert { bundle, val, .. }
                | QueuedCommand::InsertIfNew { bundle, val, .. } => {
                    self.cells(&bundle_comps(bundle), val)
                }
                _ => [None; COMPONENT_TYPES],
            });
        }
        {
            let world = self.world.as_ref().expect("world alive");
            let mut commands = Commands::new(&mut queue, world);
            for (command, cells) in queued.iter().zip(&prepared) {
                let resolve = |t: CommandTarget, reserved: &[Entity]| match t {
                    CommandTarget::Old(t) => self.target(t),
                    CommandTarget::New(i) if !reserved.is_empty() => {
                        reserved[i as usize % reserved.len()]
                    }
                    CommandTarget::New(i) => self.target(u16::from(i)),
                };
                match *command {
                    QueuedCommand::Spawn { bundle, .. } => {
                        struct V<'a, 'w, 's>(&'a mut Commands<'w, 's>, &'a Cells, &'a DropLog);
                        impl BundleVisitor for V<'_, '_, '_> {
                            type Out = Entity;
                            fn visit<B: ModelBundle>(self) -> Entity {
                                self.0.spawn(B::make(self.1, self.2)).id()
                            }
                        }
                        let e = with_bundle(bundle, V(&mut commands, cells, &log));
                        reserved.push(e);
                        pending.push(Pending::Spawn(e, *cells));
                    }
                    QueuedCommand::SpawnEmpty => {
                        let e = commands.spawn_empty().id();
                        reserved.push(e);
                        pending.push(Pending::Spawn(e, [None; COMPONENT_TYPES]));
                    }
                    QueuedCommand::Insert { e, bundle, .. }
                    | QueuedCommand::InsertIfNew { e, bundle, .. } => {
                        let keep = matches!(command, QueuedCommand::InsertIfNew { .. });
                        let e = resolve(e, &reserved);
                        struct V<'a, 'w, 's>(
                            &'a mut Commands<'w, 's>,
                            Entity,
                            &'a Cells,
                            &'a DropLog,
                            bool,
                        );
                        impl BundleVisitor for V<'_, '_, '_> {
                            type Out = ();
                            fn visit<B: ModelBundle>(self) {
                                let b = B::make(self.2, self.3);
                                if self.4 {
                                    self.0.entity(self.1).insert_if_new(b);
                                } else {
                                    self.0.entity(self.1).insert(b);
                                }
                            }
                        }
                        with_bundle(bundle, V(&mut commands, e, cells, &log, keep));
                        pending.push(Pending::Insert(e, *cells, keep));
                    }
                    QueuedCommand::Remove { e, bundle } => {
                        let e = resolve(e, &reserved);
                        struct V<'a, 'w, 's>(&'a mut Commands<'w, 's>, Entity);
                        impl BundleVisitor for V<'_, '_, '_> {
                            type Out = ();
                            fn visit<B: ModelBundle>(self) {
                                self.0.entity(self.1).remove::<B>();
                            }
                        }
                        with_bundle(bundle, V(&mut commands, e));
                        pending.push(Pending::Remove(e, bundle_comps(bundle)));
                    }
                    QueuedCommand::Despawn { e } => {
                        let e = resolve(e, &reserved);
                        commands.entity(e).despawn();
                        pending.push(Pending::Despawn(e));
                    }
                }
            }
        }
        queue.apply(self.world());
        assert!(queue.is_empty(), "apply empties the queue");
        // The model: reserved entities become live (empty) first, then the
        // commands run in order; commands on dead entities drop their
        // values.
        for &e in &reserved {
            self.adopt(e);
            self.model.spawn(e, &[None; COMPONENT_TYPES]);
        }
        for p in pending {
            match p {
                Pending::Spawn(e, cells) | Pending::Insert(e, cells, false) => {
                    if self.model.live.contains_key(&e) {
                        self.model.insert(e, &cells, false);
                    } else {
                        cells
                            .iter()
                            .flatten()
                            .for_each(|&c| self.model.drop_cell(c));
                    }
                }
                Pending::Insert(e, cells, true) => {
                    if self.model.live.contains_key(&e) {
                        self.model.insert(e, &cells, true);
                    } else {
                        cells
                            .iter()
                            .flatten()
                            .for_each(|&c| self.model.drop_cell(c));
                    }
                }
                Pending::Remove(e, comps) => {
                    if self.model.live.contains_key(&e) {
                        self.model.remove(e, &comps);
                    }
                }
                Pending::Despawn(e) => {
                    self.model.despawn(e);
                }
            }
        }
    }

    /// Compares the world with the model: every handle seen, every value,
    /// the entity count, every query, every drop count, and the storage
    /// invariants.
    pub fn check(&mut self) {
        let step = self.steps;
        let world = self.world.as_ref().expect("world alive");
        if let Err(msg) = world.check_integrity() {
            panic!("check_integrity after step {step}: {msg}");
        }
        assert_eq!(
            world.entity_count(),
            self.model.live.len(),
            "entity_count after step {step}"
        );
        for &e in self.model.live.keys() {
            assert_eq!(
                world.get::<ChildOf>(e).map(ChildOf::parent),
                self.model.parent.get(&e).copied(),
                "ChildOf of {e:?} after step {step}"
            );
            assert_eq!(
                world.get::<Children>(e).map(|c| c.to_vec()),
                self.model.children.get(&e).cloned(),
                "Children of {e:?} after step {step}"
            );
        }
        for &e in &self.pool {
            let expected = self.model.live.get(&e);
            assert_eq!(
                world.contains_entity(e),
                expected.is_some(),
                "contains_entity({e:?}) after step {step}"
            );
            match (world.get_entity(e), expected) {
                (Ok(er), Some(row)) => {
                    assert_eq!(er.id(), e);
                    let got = read_cells(er);
                    assert_eq!(
                        got,
                        model_cells(row),
                        "values of {e:?} after step {step} (order: {NAMES:?})"
                    );
                    // The world's own accessors agree with the handle's.
                    assert_eq!(world.get::<Plain>(e).map(ModelComponent::cell), got[0]);
                    assert_eq!(
                        world.get::<SparseTracked>(e).map(ModelComponent::cell),
                        got[7]
                    );
                }
                (Err(err), None) => {
                    assert_eq!(err.entity(), e);
                    assert!(err.to_string().contains(&named(e)), "{err}");
                    assert!(world.get::<Plain>(e).is_none());
                    assert!(world.get::<SparseMarker>(e).is_none());
                }
                (Ok(_), None) => panic!("stale handle {e:?} reaches an entity after step {step}"),
                (Err(err), Some(_)) => panic!("live {e:?} refused after step {step}: {err}"),
            }
        }
        for q in 0..QUERIES {
            let got = self.queries.results(q, world);
            let expected = self.model.query_results(q);
            assert_eq!(got, expected, "query {q} results after step {step}");
        }
        let mut got = self.log.counts();
        let mut expected = self.model.expected_drops.clone();
        let len = got.len().max(expected.len());
        got.resize(len, 0);
        expected.resize(len, 0);
        if got != expected {
            let diff: Vec<(usize, u32, u32)> = got
                .iter()
                .zip(&expected)
                .enumerate()
                .filter(|(_, (g, e))| g != e)
                .map(|(i, (g, e))| (i, *g, *e))
                .collect();
            panic!(
                "drop counts after step {step} differ as (tracked id, dropped, expected): {diff:?}"
            );
        }
    }

    /// Drops the world and checks that every tracked value created was
    /// dropped exactly once.
    pub fn finish(mut self) {
        let world = self.world.take().expect("world alive");
        drop(self.queries);
        drop(world);
        drop(self.saved.take());
        let counts = self.log.counts();
        for tracked_id in 1..self.next_tracked_id {
            let n = counts.get(tracked_id as usize).copied().unwrap_or(0);
            let copies = 1 + self.clones.get(tracked_id as usize).copied().unwrap_or(0);
            assert_eq!(
                n, copies,
                "tracked value {tracked_id} was dropped {n} times by the end (expected once per \
                 copy: {copies})"
            );
        }
        assert!(
            counts.len() <= self.next_tracked_id as usize,
            "a drop of a value never created"
        );
    }
}

fn model_cells(row: &ModelRow) -> Cells {
    let mut cells = [None; COMPONENT_TYPES];
    for (c, m) in cells.iter_mut().zip(row) {
        *c = m.map(|m| m.cell);
    }
    cells
}

/// Every value of one entity, through an `EntityRef`.
pub fn read_cells(er: EntityRef<'_>) -> Cells {
    struct V<'a, 'w>(&'a EntityRef<'w>);
    impl CompVisitor for V<'_, '_> {
        type Out = Option<Cell>;
        fn visit<T: ModelComponent>(self) -> Option<Cell> {
            let v = self.0.get::<T>().map(ModelComponent::cell);
            assert_eq!(v.is_some(), self.0.contains::<T>(), "get vs contains");
            v
        }
    }
    std::array::from_fn(|c| with_comp(c, V(&er)))
}

/// Every value of one entity, through an `EntityWorldMut`.
fn read_cells_mut(em: &EntityWorldMut<'_>) -> Cells {
    struct V<'a, 'w>(&'a EntityWorldMut<'w>);
    impl CompVisitor for V<'_, '_> {
        type Out = Option<Cell>;
        fn visit<T: ModelComponent>(self) -> Option<Cell> {
            let v = self.0.get::<T>().map(ModelComponent::cell);
            assert_eq!(v.is_some(), self.0.contains::<T>(), "get vs contains");
            v
        }
    }
    std::array::from_fn(|c| with_comp(c, V(em)))
}

/// Runs operations on a fresh harness, checking after each, then drops
/// the world and checks drop counts.
pub fn run(ops: &[Op]) {
    let mut h = Harness::new();
    for op in ops {
        h.apply(op);
        h.check();
    }
    h.finish();
}
