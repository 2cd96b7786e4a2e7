/* Ctrl-C inside compiled code. Python handles SIGINT only between bytecodes, so a compiled loop
 * that never returns could not be interrupted. The runtime puts its own SIGINT handler in front
 * of Python's: it raises a flag and passes the signal on. Generated loops read the flag at each
 * back-edge (one load) and return PC_ERR_INTERRUPTED; Python's handler, already pending, then
 * raises KeyboardInterrupt as usual. Included by runtime.c. */
#include <signal.h>
#include <string.h>

static volatile int g_interrupted = 0;
static struct sigaction g_prev_sigint;

static void pc_on_sigint(int sig, siginfo_t *info, void *ctx)
{
    g_interrupted = 1;
    if (g_prev_sigint.sa_flags & SA_SIGINFO) {
        if (g_prev_sigint.sa_sigaction) g_prev_sigint.sa_sigaction(sig, info, ctx);
    } else if (g_prev_sigint.sa_handler != SIG_DFL && g_prev_sigint.sa_handler != SIG_IGN) {
        g_prev_sigint.sa_handler(sig);
    }
}

/* Put the handler in front of the current SIGINT handler (Python's), once; 0 on success, 1 when
 * there is no handler to pass signals to (SIG_DFL / SIG_IGN: left alone), -1 on error. */
int pc_watch_interrupts(void)
{
    struct sigaction cur, mine;
    if (sigaction(SIGINT, NULL, &cur) != 0) return -1;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == pc_on_sigint) return 0;
    if (!(cur.sa_flags & SA_SIGINFO) && (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN)) return 1;
    memcpy(&g_prev_sigint, &cur, sizeof cur);
    memcpy(&mine, &cur, sizeof cur);
    mine.sa_flags |= SA_SIGINFO;
    mine.sa_sigaction = pc_on_sigint;
    return sigaction(SIGINT, &mine, NULL) == 0 ? 0 : -1;
}

void pc_clear_interrupt(void) { g_interrupted = 0; }
