use crate::{
    bundle::{Bundle, BundleSpawner},
    entity::Entity,
};

/// The entities spawned by [`World::spawn_batch`](super::World::spawn_batch),
/// spawned as the iterator advances. Dropping it spawns the rest.
pub struct SpawnBatchIter<'w, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    inner: I,
    spawner: BundleSpawner<'w>,
}

impl<'w, I> SpawnBatchIter<'w, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    pub(crate) fn new(inner: I, spawner: BundleSpawner<'w>) -> Self {
        SpawnBatchIter { inner, spawner }
    }
}

impl<I> Iterator for SpawnBatchIter<'_, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let bundle = self.inner.next()?;
        let entity = self.spawner.spawn(bundle);
        self.spawner.flush_commands();
        Some(entity)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<I> ExactSizeIterator for SpawnBatchIter<'_, I>
where
    I: ExactSizeIterator,
    I::Item: Bundle,
{
}

impl<I> Drop for SpawnBatchIter<'_, I>
where
    I: Iterator,
    I::Item: Bundle,
{
    fn drop(&mut self) {
        // When the input iterator itself panicked, stop: every entity
        // spawned so far is complete, and pulling more could panic again.
        if std::thread::panicking() {
            return;
        }
        for _ in self {}
    }
}
