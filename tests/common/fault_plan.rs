//! A fault plan and a drop ledger for panic-injection tests.
//!
//! A [`Fault`] counts the invocations of every instrumented user callback,
//! records where each came from, and panics at the k-th one (or at every
//! one from the k-th on). Callbacks that have no handle of their own
//! (`Default`, required-component constructors, hooks, observers) find the
//! fault through a thread-local set by [`Fault::install`]; values
//! ([`Payload`]) and systems carry a handle, so they count on any thread.
//!
//! The ledger gives every [`Payload`] a fresh id and counts its drops: a
//! value dropped twice, a drop of an id never created (garbage bytes) and a
//! value never dropped are all reported, never turned into a double free of
//! the payload's heap text (which would abort the test binary).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Default)]
struct Plan {
    armed: bool,
    calls: u64,
    target: u64,
    /// Panic at every call from the target on, not only at the target.
    from_target_on: bool,
    fired_at: Option<String>,
    /// The site of every call counted while armed, in order.
    trace: Vec<String>,
}

#[derive(Default)]
struct Ledger {
    created: u64,
    /// Drops per id (ids start at 1).
    drops: BTreeMap<u64, u32>,
    /// Drops of ids that were never created.
    unknown: Vec<u64>,
}

#[derive(Default)]
struct Shared {
    plan: Mutex<Plan>,
    ledger: Mutex<Ledger>,
}

/// One test run's fault plan and drop ledger.
#[derive(Clone, Default)]
pub struct Fault(Arc<Shared>);

thread_local! {
    static CURRENT: RefCell<Option<Fault>> = const { RefCell::new(None) };
}

/// The marker an injected panic's message starts with.
pub const INJECTED: &str = "injected panic";

impl Fault {
    /// Makes `self` the fault that handle-less callbacks on this thread use.
    pub fn install(&self) {
        CURRENT.with(|c| *c.borrow_mut() = Some(self.clone()));
    }

    /// The fault installed on this thread, if any.
    pub fn current() -> Option<Fault> {
        CURRENT.with(|c| c.borrow().clone())
    }

    /// Removes the thread's fault.
    pub fn uninstall() {
        CURRENT.with(|c| *c.borrow_mut() = None);
    }

    /// Panics at the `k`-th counted call from now on (k >= 1), and with
    /// `from_k_on` at every later call too (a callback that keeps failing,
    /// so recovery paths meet panics as well).
    pub fn arm(&self, k: u64, from_k_on: bool) {
        let mut plan = lock(&self.0.plan);
        plan.armed = true;
        plan.calls = 0;
        plan.target = k;
        plan.from_target_on = from_k_on;
        plan.trace.clear();
        plan.fired_at = None;
    }

    /// Stops counting; returns the number of calls counted and the site of
    /// the first injected panic, if one fired.
    pub fn disarm(&self) -> (u64, Option<String>) {
        let mut plan = lock(&self.0.plan);
        plan.armed = false;
        (plan.calls, plan.fired_at.take())
    }

    /// The site of every call counted since the last `arm`, in order.
    pub fn trace(&self) -> Vec<String> {
        lock(&self.0.plan).trace.clone()
    }

    /// Counts one call of the callback `site`; panics if it is the target.
    /// Never panics while the thread is already unwinding (that aborts).
    pub fn tick(&self, site: &str) {
        let fire = {
            let mut plan = lock(&self.0.plan);
            if !plan.armed {
                return;
            }
            plan.calls += 1;
            plan.trace.push(site.to_owned());
            let hit = if plan.from_target_on {
                plan.calls >= plan.target
            } else {
                plan.calls == plan.target
            };
            let fire = hit && !std::thread::panicking();
            if fire && plan.fired_at.is_none() {
                plan.fired_at = Some(site.to_owned());
            }
            fire
        };
        if fire {
            panic!("{INJECTED} at call {} in {site}", self.calls());
        }
    }

    fn calls(&self) -> u64 {
        lock(&self.0.plan).calls
    }

    fn create(&self) -> u64 {
        let mut ledger = lock(&self.0.ledger);
        ledger.created += 1;
        ledger.created
    }

    /// Records a drop; true for the first drop of a created id.
    fn record_drop(&self, id: u64) -> bool {
        let mut ledger = lock(&self.0.ledger);
        if id == 0 || id > ledger.created {
            ledger.unknown.push(id);
            return false;
        }
        let n = ledger.drops.entry(id).or_insert(0);
        *n += 1;
        *n == 1
    }

    /// Whether `id` was created and not dropped yet.
    pub fn is_live(&self, id: u64) -> bool {
        let ledger = lock(&self.0.ledger);
        id >= 1 && id <= ledger.created && !ledger.drops.contains_key(&id)
    }

    /// How many values were created so far (ids `1..=created`).
    pub fn created(&self) -> u64 {
        lock(&self.0.ledger).created
    }

    /// How many values are created and not dropped.
    pub fn live_count(&self) -> u64 {
        let ledger = lock(&self.0.ledger);
        ledger.created - ledger.drops.len() as u64
    }

    /// Problems of the drop accounting: double drops, drops of unknown
    /// ids, and (with `all_dropped`) values never dropped.
    pub fn drop_problems(&self, all_dropped: bool) -> Vec<String> {
        let ledger = lock(&self.0.ledger);
        let mut problems = Vec::new();
        for (&id, &n) in &ledger.drops {
            if n > 1 {
                problems.push(format!("value #{id} dropped {n} times"));
            }
        }
        if !ledger.unknown.is_empty() {
            problems.push(format!(
                "drops of ids never created (garbage values): {:?}",
                ledger.unknown
            ));
        }
        if all_dropped {
            let leaked: Vec<u64> = (1..=ledger.created)
                .filter(|id| !ledger.drops.contains_key(id))
                .collect();
            if !leaked.is_empty() {
                problems.push(format!(
                    "{} value(s) never dropped after the world was dropped: {leaked:?}",
                    leaked.len()
                ));
            }
        }
        problems
    }
}

/// Counts a call of `site` against the thread's fault, if one is installed.
pub fn tick(site: &str) {
    if let Some(fault) = Fault::current() {
        fault.tick(site);
    }
}

/// A drop-counted value with heap text; its `Drop` and `Clone` are
/// instrumented callbacks. `label` is the site its drop counts as
/// ("Drop of T").
pub struct Payload {
    id: u64,
    label: &'static str,
    fault: ManuallyDrop<Fault>,
    text: ManuallyDrop<String>,
}

impl Payload {
    /// A new value counted by the thread's fault.
    pub fn new(label: &'static str) -> Self {
        let fault = Fault::current().expect("a fault is installed on this thread");
        Self::with(&fault, label)
    }

    /// A new value counted by `fault`.
    pub fn with(fault: &Fault, label: &'static str) -> Self {
        let id = fault.create();
        Payload {
            id,
            label,
            fault: ManuallyDrop::new(fault.clone()),
            text: ManuallyDrop::new(format!("value #{id}")),
        }
    }

    /// A value outside the ledger (id 0): its drop is neither counted nor
    /// a callback; its clones are counted.
    pub fn template(label: &'static str) -> Self {
        let fault = Fault::current().expect("a fault is installed on this thread");
        Payload {
            id: 0,
            label,
            fault: ManuallyDrop::new(fault),
            text: ManuallyDrop::new(String::from("template")),
        }
    }

    /// The value's id.
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl Clone for Payload {
    fn clone(&self) -> Self {
        self.fault.tick("Clone of Payload");
        Payload::with(&self.fault, self.label)
    }
}

impl Drop for Payload {
    fn drop(&mut self) {
        if self.id == 0 {
            // SAFETY: a template is never in the world, so never copied:
            // this is its one drop.
            unsafe {
                ManuallyDrop::drop(&mut self.text);
                ManuallyDrop::drop(&mut self.fault);
            }
            return;
        }
        let fault = if self.fault.record_drop(self.id) {
            // SAFETY: the first drop of this id frees its fields, once.
            unsafe {
                ManuallyDrop::drop(&mut self.text);
                ManuallyDrop::take(&mut self.fault)
            }
        } else {
            // A bitwise copy dropped again: its fields were freed by the
            // first drop; the driver's own handle keeps the ledger alive.
            Fault::clone(&self.fault)
        };
        fault.tick(self.label);
    }
}
