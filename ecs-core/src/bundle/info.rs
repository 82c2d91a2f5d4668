use std::{any::TypeId, fmt};

use hashbrown::HashMap;

use super::Bundle;
use crate::{
    archetype::{
        ArchetypeAfterBundleInsert, ArchetypeAfterBundleRemove, ArchetypeId, Archetypes,
        ComponentStatus, TableMoves,
    },
    component::{ComponentId, Components, RequiredComponent, StorageType},
    storage::{column_slot, SparseSetIndex, Storages},
    utils::TypeIdMap,
};

/// A dense id of a bundle type (or of a dynamic set of components) within
/// one world.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BundleId(u32);

impl BundleId {
    /// The index of this id.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for BundleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BundleId({})", self.0)
    }
}

impl SparseSetIndex for BundleId {
    #[inline]
    fn sparse_set_index(&self) -> usize {
        self.index()
    }
    #[inline]
    fn get_sparse_set_index(value: usize) -> Self {
        BundleId(value as u32)
    }
}

/// A resolved bundle: its id and its component ids in bundle order.
#[derive(Debug)]
pub struct BundleInfo {
    id: BundleId,
    name: String,
    component_ids: Box<[ComponentId]>,
    /// Where a spawn of this bundle lands, once computed: the target of the
    /// empty archetype's insert edge (which never changes once cached).
    spawn_target: Option<SpawnTarget>,
    /// Once `spawn_target` is computed: for each component, in bundle
    /// order, the position of its column in the target's table
    /// ([`NO_COLUMN`](crate::storage::NO_COLUMN) for a sparse-set one), so
    /// a spawn writes each value without looking its column up.
    spawn_columns: Box<[u32]>,
}

/// Where an insert of a bundle into an archetype leads (its cached edge,
/// in short).
#[derive(Debug, Clone, Copy)]
pub(crate) struct InsertTarget {
    /// The archetype after the insert (maybe the same one).
    pub(crate) archetype_id: ArchetypeId,
    /// Whether the insert adds required components.
    pub(crate) has_required: bool,
    /// Whether every bundle component is new to the archetype.
    pub(crate) all_added: bool,
}

/// The archetype and table a spawned bundle lands in, and whether the
/// spawn adds required components.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpawnTarget {
    pub(crate) archetype_id: ArchetypeId,
    pub(crate) table_id: crate::storage::TableId,
    pub(crate) has_required: bool,
}

impl BundleInfo {
    /// The bundle's id.
    #[inline]
    pub fn id(&self) -> BundleId {
        self.id
    }

    /// The bundle's type name.
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The component ids, in the order the bundle hands out its values.
    #[inline]
    pub fn components(&self) -> &[ComponentId] {
        &self.component_ids
    }

    /// The components the bundle names itself (not those they require):
    /// [`BundleInfo::components`], by bevy's name.
    #[inline]
    pub fn explicit_components(&self) -> &[ComponentId] {
        &self.component_ids
    }

    /// The column position of each component in the spawn target's table
    /// (see the field); empty until the spawn target is computed.
    #[inline]
    pub(crate) fn spawn_columns(&self) -> &[u32] {
        &self.spawn_columns
    }

    /// The position of each component's column in `table`, in bundle
    /// order ([`NO_COLUMN`](crate::storage::NO_COLUMN) for a component it
    /// lacks): what `spawn_columns` caches for the spawn target's table.
    pub(crate) fn column_positions_in<'a>(
        &'a self,
        table: &'a crate::storage::Table,
    ) -> impl Iterator<Item = u32> + 'a {
        self.component_ids.iter().map(|&id| column_slot(table, id))
    }

    /// The spawn target's table and the cached column positions, once
    /// computed: for the integrity check.
    pub(crate) fn spawn_table_and_columns(&self) -> Option<(crate::storage::TableId, &[u32])> {
        self.spawn_target
            .map(|target| (target.table_id, &*self.spawn_columns))
    }

    /// The archetype that inserting this bundle into `archetype_id` leads
    /// to, and whether required components get added on the way; computed
    /// once and cached in the archetype's edges.
    #[inline]
    pub(crate) fn insert_bundle_into_archetype(
        &self,
        archetypes: &mut Archetypes,
        storages: &mut Storages,
        components: &Components,
        archetype_id: ArchetypeId,
    ) -> InsertTarget {
        let edges = archetypes[archetype_id].edges();
        let after = match edges.get_archetype_after_bundle_insert(self.id) {
            Some(after) => after,
            None => {
                self.compute_insert_edge(archetypes, storages, components, archetype_id);
                archetypes[archetype_id]
                    .edges()
                    .get_archetype_after_bundle_insert(self.id)
                    .expect("just cached")
            }
        };
        InsertTarget {
            archetype_id: after.archetype_id,
            has_required: !after.required_components.is_empty(),
            all_added: after.all_added,
        }
    }

    #[cold]
    fn compute_insert_edge(
        &self,
        archetypes: &mut Archetypes,
        storages: &mut Storages,
        components: &Components,
        archetype_id: ArchetypeId,
    ) -> ArchetypeId {
        let current = &archetypes[archetype_id];
        let mut bundle_status = Vec::with_capacity(self.component_ids.len());
        let mut new_table = Vec::new();
        let mut new_sparse = Vec::new();
        let mut add_new = |id: ComponentId| {
            // SAFETY: ids handed to this closure come from this registry.
            match unsafe { components.get_info_unchecked(id) }.storage_type() {
                StorageType::Table => new_table.push(id),
                StorageType::SparseSet => new_sparse.push(id),
            }
        };
        for &id in self.component_ids.iter() {
            if current.contains(id) {
                bundle_status.push(ComponentStatus::Existing);
            } else {
                bundle_status.push(ComponentStatus::Added);
                add_new(id);
            }
        }
        // Required components the entity will lack: a value the caller
        // gives (in the bundle) or already has always wins.
        let mut required: Vec<RequiredComponent> = Vec::new();
        for &id in self.component_ids.iter() {
            // SAFETY: bundle component ids come from this registry.
            for requirement in unsafe { components.get_info_unchecked(id) }.required_components() {
                let r = requirement.id;
                if !current.contains(r)
                    && !self.component_ids.contains(&r)
                    && !required.iter().any(|q| q.id == r)
                {
                    required.push(requirement.clone());
                    add_new(r);
                }
            }
        }
        let target = if new_table.is_empty() && new_sparse.is_empty() {
            archetype_id
        } else {
            let mut table: Vec<_> = current.table_components().to_vec();
            table.extend(new_table);
            table.sort_unstable();
            let mut sparse: Vec<_> = current.sparse_set_components().to_vec();
            sparse.extend(new_sparse);
            sparse.sort_unstable();
            archetypes.get_id_or_insert(
                components,
                &mut storages.tables,
                &mut storages.sparse_sets,
                table,
                sparse,
            )
        };
        let table_moves = table_moves(archetypes, storages, archetype_id, target);
        archetypes[archetype_id]
            .edges_mut()
            .cache_archetype_after_bundle_insert(
                self.id,
                ArchetypeAfterBundleInsert {
                    archetype_id: target,
                    all_added: bundle_status.iter().all(|&s| s == ComponentStatus::Added),
                    bundle_status: bundle_status.into_boxed_slice(),
                    required_components: required.into_boxed_slice(),
                    table_moves,
                },
            );
        target
    }

    /// The archetype after removing this bundle from `archetype_id`.
    /// `intersection`: remove whatever of the bundle is present (remove);
    /// otherwise `None` unless all of it is present (take). Cached in the
    /// archetype's edges.
    pub(crate) fn remove_bundle_from_archetype(
        &self,
        archetypes: &mut Archetypes,
        storages: &mut Storages,
        components: &Components,
        archetype_id: ArchetypeId,
        intersection: bool,
    ) -> Option<ArchetypeId> {
        let edges = archetypes[archetype_id].edges();
        let cached = if intersection {
            edges.get_archetype_after_bundle_remove(self.id).map(Some)
        } else {
            edges.get_archetype_after_bundle_take(self.id)
        };
        if let Some(result) = cached {
            return result;
        }
        self.compute_remove_edge(archetypes, storages, components, archetype_id, intersection)
    }

    #[cold]
    fn compute_remove_edge(
        &self,
        archetypes: &mut Archetypes,
        storages: &mut Storages,
        components: &Components,
        archetype_id: ArchetypeId,
        intersection: bool,
    ) -> Option<ArchetypeId> {
        let current = &archetypes[archetype_id];
        let mut table: Vec<_> = current.table_components().to_vec();
        let mut sparse: Vec<_> = current.sparse_set_components().to_vec();
        let mut missing = false;
        for &id in self.component_ids.iter() {
            if current.contains(id) {
                // SAFETY: bundle component ids come from this registry.
                match unsafe { components.get_info_unchecked(id) }.storage_type() {
                    StorageType::Table => table.retain(|&c| c != id),
                    StorageType::SparseSet => sparse.retain(|&c| c != id),
                }
            } else {
                missing = true;
            }
        }
        let result = if missing && !intersection {
            None
        } else if table.len() + sparse.len() == current.component_count() {
            Some(archetype_id)
        } else {
            Some(archetypes.get_id_or_insert(
                components,
                &mut storages.tables,
                &mut storages.sparse_sets,
                table,
                sparse,
            ))
        };
        let after = result.map(|target| ArchetypeAfterBundleRemove {
            archetype_id: target,
            table_moves: table_moves(archetypes, storages, archetype_id, target),
        });
        let edges = archetypes[archetype_id].edges_mut();
        if intersection {
            edges.cache_archetype_after_bundle_remove(
                self.id,
                after.expect("remove always has a target"),
            );
        } else {
            edges.cache_archetype_after_bundle_take(self.id, after);
        }
        result
    }
}

/// The column positions of an edge from `from` to `to` (see
/// [`TableMoves`]): empty when they share a table.
fn table_moves(
    archetypes: &Archetypes,
    storages: &Storages,
    from: ArchetypeId,
    to: ArchetypeId,
) -> TableMoves {
    let (from, to) = (archetypes[from].table_id(), archetypes[to].table_id());
    if from == to {
        TableMoves::default()
    } else {
        storages.tables[from].column_positions_in(&storages.tables[to])
    }
}

/// The registry of every bundle a world has seen.
#[derive(Debug, Default)]
pub struct Bundles {
    infos: Vec<BundleInfo>,
    by_type: TypeIdMap<BundleId>,
    /// The bundle type looked up last, and its id: loops insert or remove
    /// the same type again and again, and a hit costs one comparison
    /// instead of a map probe.
    last_by_type: Option<(TypeId, BundleId)>,
    by_components: HashMap<Box<[ComponentId]>, BundleId>,
}

impl Bundles {
    /// The info of a bundle.
    #[inline]
    pub fn get(&self, id: BundleId) -> Option<&BundleInfo> {
        self.infos.get(id.index())
    }

    /// The id of the bundle type `B`, if registered.
    #[inline]
    pub fn get_id(&self, type_id: TypeId) -> Option<BundleId> {
        self.by_type.get(&type_id).copied()
    }

    /// Every registered bundle's info.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, BundleInfo> {
        self.infos.iter()
    }

    /// The number of registered bundles.
    #[inline]
    pub fn len(&self) -> usize {
        self.infos.len()
    }

    /// Whether no bundle is registered.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.infos.is_empty()
    }

    /// Registers the bundle type `B` (once), registering its components.
    ///
    /// # Panics
    /// If `B` names one component twice.
    #[inline]
    #[track_caller]
    pub(crate) fn register_info<B: Bundle>(&mut self, components: &mut Components) -> BundleId {
        let type_id = TypeId::of::<B>();
        if let Some((last, id)) = self.last_by_type {
            if last == type_id {
                return id;
            }
        }
        let id = match self.by_type.get(&type_id) {
            Some(&id) => id,
            None => self.register_new::<B>(components),
        };
        self.last_by_type = Some((type_id, id));
        id
    }

    #[cold]
    #[track_caller]
    fn register_new<B: Bundle>(&mut self, components: &mut Components) -> BundleId {
        let mut ids = Vec::new();
        B::component_ids(components, &mut |id| ids.push(id));
        let id = self.push(std::any::type_name::<B>(), ids, components);
        self.by_type.insert(TypeId::of::<B>(), id);
        id
    }

    /// Registers a bundle of components given by id (dynamic bundles and
    /// single components by id).
    #[track_caller]
    pub(crate) fn register_dynamic(
        &mut self,
        ids: &[ComponentId],
        components: &Components,
    ) -> BundleId {
        if let Some(&id) = self.by_components.get(ids) {
            return id;
        }
        let name = format!("{:?}", ids);
        let id = self.push(&name, ids.to_vec(), components);
        self.by_components.insert(ids.into(), id);
        id
    }

    #[track_caller]
    fn push(&mut self, name: &str, ids: Vec<ComponentId>, components: &Components) -> BundleId {
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|w| w[0] == w[1]) {
            let component = components.get_name(pair[0]).unwrap_or("<unknown>");
            panic!("duplicate component `{component}` in bundle `{name}`: a bundle may name each component once");
        }
        let id = BundleId(self.infos.len() as u32);
        self.infos.push(BundleInfo {
            id,
            name: name.to_owned(),
            component_ids: ids.into_boxed_slice(),
            spawn_target: None,
            spawn_columns: Box::default(),
        });
        id
    }
}

impl Bundles {
    /// Where spawning bundle `id` lands, computing (and caching) the edge
    /// from the empty archetype on first use.
    #[inline]
    pub(crate) fn spawn_target(
        &mut self,
        id: BundleId,
        archetypes: &mut Archetypes,
        storages: &mut Storages,
        components: &Components,
    ) -> SpawnTarget {
        match self.infos[id.index()].spawn_target {
            Some(target) => target,
            None => self.compute_spawn_target(id, archetypes, storages, components),
        }
    }

    /// [`Bundles::spawn_target`] on first use: out of line, so the cached
    /// case inlines into every spawn.
    #[cold]
    fn compute_spawn_target(
        &mut self,
        id: BundleId,
        archetypes: &mut Archetypes,
        storages: &mut Storages,
        components: &Components,
    ) -> SpawnTarget {
        let info = &mut self.infos[id.index()];
        let InsertTarget {
            archetype_id,
            has_required,
            ..
        } = info.insert_bundle_into_archetype(archetypes, storages, components, ArchetypeId::EMPTY);
        let target = SpawnTarget {
            archetype_id,
            table_id: archetypes[archetype_id].table_id(),
            has_required,
        };
        let table = &storages.tables[target.table_id];
        info.spawn_columns = info.column_positions_in(table).collect();
        info.spawn_target = Some(target);
        target
    }
}

impl std::ops::Index<BundleId> for Bundles {
    type Output = BundleInfo;
    #[inline]
    #[track_caller]
    fn index(&self, id: BundleId) -> &BundleInfo {
        if id.index() >= self.infos.len() {
            crate::utils::unknown_id(id, self.infos.len());
        }
        &self.infos[id.index()]
    }
}
