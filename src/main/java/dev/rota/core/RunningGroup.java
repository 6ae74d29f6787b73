package dev.rota.core;

/**
 * The group whose tasks a thread runs now, published so that a shutdownNow of that group can
 * interrupt the thread while, and only while, it does ({@link InterruptSlot}'s protocol). The
 * thread enters a group before running its tasks and exits it after, so an interrupt meant for one
 * group never reaches a task of the next. A task of another group run inside a waiting task
 * ({@link WorkerContext#runAwaitedTask}) switches to that group for its run and back: a shutdownNow
 * of the group left that comes meanwhile interrupts nothing, and the caller tells it afterwards by
 * the group's state ({@link Engine#runInsideWaiter}).
 */
final class RunningGroup extends InterruptSlot<Group> {
}
