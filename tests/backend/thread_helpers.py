"""Running one test body in several Python threads at once."""
import threading


def run_in_threads(body, n: int = 4) -> None:
    """Call body(k) for k in range(n), each in its own thread, all at once; the first exception a
    thread raised is raised here (an assert in a thread would otherwise only be printed)."""
    errors = []

    def run(k):
        try:
            body(k)
        except Exception as e:        # noqa: BLE001 - re-raised by the calling thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
