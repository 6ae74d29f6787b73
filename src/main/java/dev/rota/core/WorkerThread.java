package dev.rota.core;

/** The platform thread of one {@link Worker}; lets a submission find out that it comes from a worker. */
final class WorkerThread extends Thread {
    final Worker worker;

    WorkerThread(Worker worker, String name) {
        super(null, worker, name, 0, false);
        this.worker = worker;
    }
}
