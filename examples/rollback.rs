//! Rollback netcode in miniature: predict a remote player's input, and when
//! the real input arrives late, roll the world back and simulate again.
//!
//! ```text
//! cargo run --release --example rollback --features serde
//! ```
//!
//! Two players steer ships that collect coins spawned by a seeded random
//! generator. Everything the game is made of opts into snapshots on its
//! type (`#[component(snapshot = hash)]`, `#[resource(snapshot = hash)]`),
//! so `World::snapshot` copies it and `World::checksum` hashes it.
//!
//! The same match is played twice:
//! - **on time**: both players' inputs are known at every frame;
//! - **predicted**: the remote player's input reaches us `DELAY` frames
//!   late. Each frame we guess it (the last input seen, repeated), snapshot
//!   the world before simulating, and when the real input for an earlier
//!   frame turns out to differ from the guess, restore that frame's
//!   snapshot and simulate the frames since again with what we now know.
//!
//! Both runs end with the same checksum: the restore puts back entity ids,
//! values, the random generator and what the systems' change detection
//! sees, and the schedule runs the same way every time.
//!
//! Then the predicted peer's world is saved to a file (the column format,
//! as JSON), loaded into a fresh world, and both play on: the same
//! checksum again, frame after frame.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};

use ecs::prelude::*;
use ecs::world::save::SaveRegistry;
use ecs::world::WorldSnapshot;
use serde::{Deserialize, Serialize};

/// Frames per match.
const FRAMES: u32 = 600;
/// How many frames late the remote player's input arrives.
const DELAY: u32 = 7;

#[derive(ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
struct Tick;

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash, Serialize, Deserialize)]
#[component(snapshot = hash)]
struct Ship {
    player: usize,
    x: i32,
    y: i32,
    score: u32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash, Serialize, Deserialize)]
#[component(snapshot = hash)]
struct Coin {
    x: i32,
    y: i32,
    /// Frames left before it vanishes.
    ttl: u32,
}

/// One player's input for one frame: a step in x and y.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Input(i8, i8);

/// The inputs the next frame is simulated with.
#[derive(Resource, Clone, Debug, Default, PartialEq, Hash, Serialize, Deserialize)]
#[resource(snapshot = hash)]
struct FrameInputs([Input; 2]);

/// A xorshift64 generator: the game's only randomness.
#[derive(Resource, Clone, Debug, PartialEq, Hash, Serialize, Deserialize)]
#[resource(snapshot = hash)]
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x % n
    }
}

/// Coins collected so far, and the frame number.
#[derive(Resource, Clone, Debug, Default, PartialEq, Hash, Serialize, Deserialize)]
#[resource(snapshot = hash)]
struct Match {
    frame: u32,
    collected: u32,
}

fn steer(inputs: Res<FrameInputs>, mut ships: Query<&mut Ship>) {
    for mut ship in &mut ships {
        let Input(dx, dy) = inputs.0[ship.player];
        ship.x = (ship.x + i32::from(dx)).clamp(0, 31);
        ship.y = (ship.y + i32::from(dy)).clamp(0, 31);
    }
}

fn spawn_coins(mut rng: ResMut<Rng>, mut commands: Commands) {
    if rng.below(3) == 0 {
        let (x, y) = (rng.below(32) as i32, rng.below(32) as i32);
        commands.spawn(Coin { x, y, ttl: 40 });
    }
}

fn collect(
    mut ships: Query<&mut Ship>,
    coins: Query<(Entity, &Coin)>,
    mut commands: Commands,
    mut game: ResMut<Match>,
) {
    for (entity, coin) in &coins {
        for mut ship in &mut ships {
            if (ship.x - coin.x).abs() <= 1 && (ship.y - coin.y).abs() <= 1 {
                ship.score += 1;
                game.collected += 1;
                commands.entity(entity).despawn();
                break;
            }
        }
    }
}

fn expire(mut coins: Query<(Entity, &mut Coin)>, mut commands: Commands) {
    for (entity, mut coin) in &mut coins {
        coin.ttl -= 1;
        if coin.ttl == 0 {
            commands.entity(entity).despawn();
        }
    }
}

fn count_frame(mut game: ResMut<Match>) {
    game.frame += 1;
}

/// A world with the game's schedule and nothing else: what a save is
/// loaded into.
fn empty_game() -> World {
    let mut world = World::new();
    let mut schedule = Schedule::new(Tick);
    schedule.add_systems(((steer, spawn_coins, collect, expire).chain(), count_frame));
    world.add_schedule(schedule);
    world
}

fn new_world() -> World {
    let mut world = empty_game();
    world.insert_resource(Rng(0x2545_f491_4f6c_dd1d));
    world.init_resource::<FrameInputs>();
    world.init_resource::<Match>();
    world.spawn(Ship {
        player: 0,
        x: 4,
        y: 4,
        score: 0,
    });
    world.spawn(Ship {
        player: 1,
        x: 27,
        y: 27,
        score: 0,
    });
    world
}

/// What player `player` presses at `frame`: held for a few frames, then
/// changed, so a guess that repeats the last input is often right and
/// sometimes wrong.
fn pressed(player: usize, frame: u32) -> Input {
    let held = frame / (5 + player as u32 * 3);
    let mut x = (held as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ player as u64;
    x ^= x >> 29;
    Input((x % 3) as i8 - 1, ((x >> 8) % 3) as i8 - 1)
}

/// Simulates one frame with these inputs.
fn step(world: &mut World, inputs: [Input; 2]) {
    world.resource_mut::<FrameInputs>().0 = inputs;
    world.run_schedule(Tick);
}

/// The match with every input on time.
fn on_time() -> World {
    let mut world = new_world();
    for frame in 0..FRAMES {
        step(&mut world, [pressed(0, frame), pressed(1, frame)]);
    }
    world
}

/// The predicting peer's view of the match.
struct Peer {
    world: World,
    /// The snapshot taken before each of the last frames, oldest first,
    /// with that frame's number.
    history: VecDeque<(u32, WorldSnapshot)>,
    /// The remote inputs used so far: confirmed or guessed.
    remote: Vec<Input>,
    /// How many of `remote` are confirmed.
    confirmed: u32,
    rollbacks: u32,
    frames_resimulated: u32,
}

impl Peer {
    fn new() -> Self {
        Peer {
            world: new_world(),
            history: VecDeque::new(),
            remote: Vec::new(),
            confirmed: 0,
            rollbacks: 0,
            frames_resimulated: 0,
        }
    }

    /// Simulates frame `frame` with a guess for the remote input.
    fn predict(&mut self, frame: u32) {
        let guess = self.remote.last().copied().unwrap_or_default();
        self.remote.push(guess);
        self.history.push_back((frame, self.world.snapshot()));
        // Keep what a late input can still reach.
        while self.history.len() > DELAY as usize + 1 {
            self.history.pop_front();
        }
        step(&mut self.world, [pressed(0, frame), guess]);
    }

    /// The remote input of `frame` arrives: if the guess was wrong, roll
    /// back to before `frame` and simulate up to now again.
    fn confirm(&mut self, frame: u32, input: Input) {
        assert_eq!(frame, self.confirmed, "inputs arrive in order");
        self.confirmed += 1;
        if self.remote[frame as usize] == input {
            return;
        }
        // Later guesses repeated the wrong one: they repeat the real one.
        for guess in &mut self.remote[frame as usize..] {
            *guess = input;
        }
        let (_, snapshot) = self
            .history
            .iter()
            .find(|(at, _)| *at == frame)
            .expect("the snapshot of a frame within DELAY is kept");
        self.world
            .restore(snapshot)
            .expect("everything in the game is opted into snapshots");
        self.rollbacks += 1;
        let now = self.remote.len() as u32;
        for again in frame..now {
            // The snapshots after the rolled-back frame are stale: retake them.
            if again > frame {
                let slot = self
                    .history
                    .iter_mut()
                    .find(|(at, _)| *at == again)
                    .expect("kept");
                slot.1 = self.world.snapshot();
            }
            step(
                &mut self.world,
                [pressed(0, again), self.remote[again as usize]],
            );
            self.frames_resimulated += 1;
        }
    }
}

fn predicted() -> Peer {
    let mut peer = Peer::new();
    for frame in 0..FRAMES + DELAY {
        if frame >= DELAY {
            let late = frame - DELAY;
            peer.confirm(late, pressed(1, late));
        }
        if frame < FRAMES {
            peer.predict(frame);
        }
    }
    peer
}

/// Plays the match on time and predicted, checks both reach one state,
/// and returns the predicted peer's world.
fn rollback() -> World {
    let truth = on_time();
    let peer = predicted();

    let game = truth.resource::<Match>();
    println!(
        "{} frames, {} coins collected; remote input {DELAY} frames late",
        game.frame, game.collected
    );
    println!(
        "predicted peer: {} rollbacks, {} frames simulated again",
        peer.rollbacks, peer.frames_resimulated
    );
    let (expected, got) = (truth.checksum(), peer.world.checksum());
    println!("checksum on time:   {expected:016x}");
    println!("checksum predicted: {got:016x}");
    assert!(peer.rollbacks > 0, "some guesses were wrong");
    assert_eq!(
        got, expected,
        "the rolled-back run reached the on-time state"
    );
    assert_eq!(peer.world.resource::<Match>(), game);
    peer.world
}

/// Frames played on after the save, by the saved world and the loaded one.
const MORE_FRAMES: u32 = 200;

/// Saves `world` to a file, loads it into a fresh world, and plays both on
/// with the same inputs: their checksums stay equal.
fn save_load_and_play_on(mut world: World) {
    let registry = SaveRegistry::new()
        .component_with_key::<Ship>("ship")
        .component_with_key::<Coin>("coin")
        .resource_with_key::<FrameInputs>("inputs")
        .resource_with_key::<Rng>("rng")
        .resource_with_key::<Match>("match");
    let path = std::env::temp_dir().join(format!("ecs-rollback-{}.json", std::process::id()));
    let mut file = BufWriter::new(File::create(&path).expect("the save file can be created"));
    serde_json::to_writer(&mut file, &registry.columns(&world)).expect("the world saves");
    file.flush().expect("the save file is written");
    drop(file);
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());

    let mut loaded = empty_game();
    let reader = BufReader::new(File::open(&path).expect("the save file opens"));
    let ids = registry
        .load_columns(
            &mut loaded,
            &mut serde_json::Deserializer::from_reader(reader),
        )
        .expect("the save loads");
    std::fs::remove_file(&path).ok();
    assert!(
        ids.iter().all(|(saved, new)| saved == new),
        "a load into an empty world keeps the ids"
    );
    println!(
        "saved {} entities ({bytes} bytes of JSON), loaded into a fresh world",
        ids.len()
    );
    assert_eq!(loaded.checksum(), world.checksum());

    for frame in FRAMES..FRAMES + MORE_FRAMES {
        let inputs = [pressed(0, frame), pressed(1, frame)];
        step(&mut world, inputs);
        step(&mut loaded, inputs);
        assert_eq!(loaded.checksum(), world.checksum(), "frame {frame}");
    }
    println!(
        "{MORE_FRAMES} more frames on both: checksum {:016x}",
        loaded.checksum()
    );
}

fn main() {
    let world = rollback();
    assert_eq!(world.resource::<Match>().frame, FRAMES);
    save_load_and_play_on(world);
}
