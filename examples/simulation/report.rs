//! What a run prints at the end (timings, populations, a fingerprint) and
//! the picture it draws.

use std::time::Duration;

use ecs::prelude::*;
use image::{Rgb, RgbImage};

use crate::components::{Fox, Position, Rabbit};
use crate::meadow::fingerprint;
use crate::resources::{Census, History, Pasture, Sample, Settings};

pub fn print_timings(schedule: &Schedule, wall: Duration, frames: u32) {
    let timings = schedule.system_timings();
    let busy: Duration = timings.iter().map(|t| t.total).sum();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "\n{:<14} {:>5} {:>9} {:>8} {:>8} {:>6}",
        "system", "runs", "total ms", "mean ms", "max ms", "share"
    );
    for t in &timings {
        let name = t.name.rsplit("::").next().unwrap_or(&t.name);
        let mean = ms(t.total) / t.runs.max(1) as f64;
        let share = 100.0 * t.total.as_secs_f64() / busy.as_secs_f64().max(1e-9);
        println!(
            "{name:<14} {:>5} {:>9.1} {mean:>8.3} {:>8.3} {share:>5.1}%",
            t.runs,
            ms(t.total),
            ms(t.max)
        );
    }
    println!(
        "{frames} frames in {:.2} s ({:.1} frames/s); systems busy {:.2} s, {:.2}x the wall time",
        wall.as_secs_f64(),
        f64::from(frames) / wall.as_secs_f64(),
        busy.as_secs_f64(),
        busy.as_secs_f64() / wall.as_secs_f64()
    );
}

pub fn print_populations(world: &mut World) {
    let (history, census) = (&world.resource::<History>().0, world.resource::<Census>());
    let (Some(first), Some(last)) = (history.first(), history.last()) else {
        return;
    };
    println!(
        "\n{:<8} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "", "first", "min", "max", "last", "born", "died", "eaten", "starved", "old age"
    );
    let rabbits: fn(&Sample) -> u32 = |s| s.rabbits;
    for (name, count, t) in [
        ("rabbits", rabbits, census.rabbits),
        ("foxes", |s| s.foxes, census.foxes),
    ] {
        let (min, max) = (
            history.iter().map(count).min(),
            history.iter().map(count).max(),
        );
        println!(
            "{name:<8} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8}",
            count(first),
            min.unwrap_or(0),
            max.unwrap_or(0),
            count(last),
            t.born,
            t.died,
            t.eaten,
            t.starved,
            t.old_age
        );
    }
    let mean = |f: fn(&Sample) -> u32| {
        history.iter().map(|s| f(s) as f64).sum::<f64>() / history.len() as f64
    };
    println!(
        "on average {:.0} rabbits fleeing and {:.0} foxes hungry; grass at {:.0}% at the end",
        mean(|s| s.fleeing),
        mean(|s| s.hungry),
        100.0 * last.grass
    );
    println!(
        "conceptions (counted by the Pregnant on_add hook): {} rabbits, {} foxes",
        census.rabbits.conceived, census.foxes.conceived
    );
    println!(
        "update_cells: Changed<Position> matched {:.1}% of animal-frames, skipped the rest",
        100.0 * census.cells_recomputed as f64 / census.animal_frames.max(1) as f64
    );
    println!(
        "fingerprint of the final state: {:016x}",
        fingerprint(world)
    );
}

const MAP: u32 = 512;
const PLOT: u32 = 128;
const DIRT: [u8; 3] = [92, 70, 46];
const GRASS: [u8; 3] = [58, 142, 52];
const RABBIT_COLOUR: [u8; 3] = [236, 226, 206];
const FOX_COLOUR: [u8; 3] = [255, 96, 24];

/// The meadow (grass, rabbits, foxes) above the populations over time.
pub fn render(world: &mut World) -> RgbImage {
    let mut image = RgbImage::new(MAP, MAP + PLOT);
    let scale = MAP as f32 / world.resource::<Settings>().size;
    let pasture = world.resource::<Pasture>();
    for (x, y, pixel) in image.enumerate_pixels_mut().filter(|&(_, y, _)| y < MAP) {
        let grass = pasture.at((x as f32 + 0.5) / scale, (y as f32 + 0.5) / scale);
        *pixel = Rgb(std::array::from_fn(|i| {
            (f32::from(DIRT[i]) + (f32::from(GRASS[i]) - f32::from(DIRT[i])) * grass) as u8
        }));
    }
    let mut rabbits = world.query_filtered::<&Position, With<Rabbit>>();
    for p in rabbits.iter(world) {
        let (x, y) = ((p.x * scale) as u32 % MAP, (p.y * scale) as u32 % MAP);
        image.put_pixel(x, y, Rgb(RABBIT_COLOUR));
    }
    let mut foxes = world.query_filtered::<&Position, With<Fox>>();
    for p in foxes.iter(world) {
        let (x, y) = ((p.x * scale) as u32, (p.y * scale) as u32);
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            image.put_pixel((x + dx) % MAP, (y + dy) % MAP, Rgb(FOX_COLOUR));
        }
    }

    let history = &world.resource::<History>().0;
    let series: [(fn(&Sample) -> f32, [u8; 3]); 3] = [
        (|s| s.grass, GRASS),
        (|s| s.rabbits as f32, RABBIT_COLOUR),
        (|s| s.foxes as f32, FOX_COLOUR),
    ];
    for (value, colour) in series {
        let (min, max) = history
            .iter()
            .map(value)
            .fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let y_of = |s: &Sample| {
            let t = (value(s) - min) / (max - min).max(1e-6);
            MAP + PLOT - 4 - (t * (PLOT - 8) as f32) as u32
        };
        let mut previous = None;
        for x in 0..MAP {
            let Some(sample) = history.get(x as usize * history.len() / MAP as usize) else {
                break;
            };
            let y = y_of(sample);
            let (lo, hi) = previous.map_or((y, y), |p: u32| (p.min(y), p.max(y)));
            for yy in lo..=hi {
                image.put_pixel(x, yy, Rgb(colour));
            }
            previous = Some(y);
        }
    }
    image
}
