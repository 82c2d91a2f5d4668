//! `messages`: a writer, a reader and the buffer update, 100,000 messages
//! per update, as a game sends many small notifications each frame.
//!
//! ```text
//! send (write_batch 100,000) ──▶ receive (read, sum) ──▶ message_update_system
//! ```
//!
//! The scenario itself is [`messages_scenario!`](crate::messages_scenario),
//! expanded once per library so both run the same systems and check.

/// Messages written, and read, per update.
pub const PER_UPDATE: u64 = 100_000;
/// Updates the check runs.
pub const CHECK_FRAMES: u64 = 3;

/// The sum of the values of one update's messages (`0..PER_UPDATE`).
pub fn sum_per_update() -> u64 {
    PER_UPDATE * (PER_UPDATE - 1) / 2
}

/// Defines the `messages` scenario on the ECS named `$krate` (`ecs` or
/// `bevy_ecs`), whose prelude is in scope: its message, systems and
/// `pub fn messages() -> Box<dyn Case>`.
#[macro_export]
macro_rules! messages_scenario {
    ($krate:ident) => {
        /// One notification.
        #[derive(Message)]
        struct Pulse(u64);

        /// What `receive` has read.
        #[derive(Resource, Default)]
        struct Received {
            count: u64,
            sum: u64,
        }

        fn send(mut pulses: MessageWriter<Pulse>) {
            pulses.write_batch((0..$crate::messages::PER_UPDATE).map(Pulse));
        }

        fn receive(mut pulses: MessageReader<Pulse>, mut received: ResMut<Received>) {
            for pulse in pulses.read() {
                received.count += 1;
                received.sum = received.sum.wrapping_add(pulse.0);
            }
        }

        struct MessagesCase {
            world: World,
            schedule: Schedule,
        }

        fn verify(s: &mut MessagesCase) {
            use $crate::messages::{sum_per_update, CHECK_FRAMES, PER_UPDATE};
            let before = s.world.resource::<Received>();
            let (count, sum) = (before.count, before.sum);
            for _ in 0..CHECK_FRAMES {
                s.schedule.run(&mut s.world);
            }
            let after = s.world.resource::<Received>();
            assert_eq!(after.count - count, CHECK_FRAMES * PER_UPDATE);
            assert_eq!(
                after.sum.wrapping_sub(sum),
                CHECK_FRAMES.wrapping_mul(sum_per_update())
            );
            // After the update, only the last update's messages are kept.
            let stored = s.world.resource::<Messages<Pulse>>().len() as u64;
            assert_eq!(stored, PER_UPDATE);
        }

        /// `messages`: 100,000 messages written and read per update.
        pub fn messages() -> Box<dyn $crate::Case> {
            let mut world = World::new();
            $krate::message::MessageRegistry::register_message::<Pulse>(&mut world);
            world.init_resource::<Received>();
            let mut schedule = Schedule::default();
            schedule.add_systems((send, receive, $krate::message::message_update_system).chain());
            $crate::case(
                MessagesCase { world, schedule },
                |s| s.schedule.run(&mut s.world),
                verify,
            )
        }
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn ours_reads_every_message() {
        let mut case = crate::ours::messages();
        case.run_batch(2);
        case.verify();
    }
}
