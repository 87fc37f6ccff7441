/* A CPU without AMX for one process tree: preloaded by bench/no_amx.py (LD_PRELOAD).
 *
 * Linux can make the CPUID instruction fault in a thread (arch_prctl ARCH_SET_CPUID, on CPUs
 * with "cpuid_fault"; kept across fork/clone, reset by execve, so each program's loader runs
 * this constructor again). Each CPUID then traps here: the handler runs the real CPUID and
 * clears what would tell software the CPU has AMX, as a CPU without it answers:
 *   leaf 7.0  EDX bits 22 (AMX-BF16), 24 (AMX-TILE), 25 (AMX-INT8)
 *   leaf 7.1  EAX bit 21 (AMX-FP16), EDX bit 8 (AMX-COMPLEX)
 *   leaf 0xD  sub-leaf 0 EAX bits 17-18 (the tile state XSAVE supports), sub-leaves 17-18 zero
 *   leaves 0x1D, 0x1E (tile and TMUL information) zero
 * Everything else is the CPU's own answer. oneDNN and OpenVINO (Xbyak), OpenBLAS and NumPy
 * read CPUID themselves once loaded, after this constructor. glibc's loader reads CPUID
 * before it (its cached view, <sys/platform/x86.h>, keeps AMX); nothing here asks it.
 *
 * Other programs may install their own SIGSEGV handler (Python's faulthandler): sigaction
 * and signal are wrapped so theirs is kept and called for every fault that is not a CPUID.
 * NO_AMX_REPORT=1 prints how many CPUIDs were answered when a process exits.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn real_sigaction;
static struct sigaction app_segv;   /* the program's own SIGSEGV disposition */
static int installed;
static unsigned long answered;

static void answer_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);  /* this thread only */
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
    if (leaf == 7 && sub == 0) {
        r[3] &= ~((1u << 22) | (1u << 24) | (1u << 25));
    } else if (leaf == 7 && sub == 1) {
        r[0] &= ~(1u << 21);
        r[3] &= ~(1u << 8);
    } else if (leaf == 0xD && sub == 0) {
        r[0] &= ~((1u << 17) | (1u << 18));
    } else if ((leaf == 0xD && (sub == 17 || sub == 18)) || leaf == 0x1D || leaf == 0x1E) {
        r[0] = r[1] = r[2] = r[3] = 0;
    }
}

static void on_segv(int sig, siginfo_t *info, void *ctx)
{
    ucontext_t *uc = ctx;
    greg_t *g = uc->uc_mcontext.gregs;
    /* a CPUID fault is a general-protection fault (SI_KERNEL) at a 0F A2 */
    if (info->si_code == SI_KERNEL) {
        const unsigned char *ip = (const unsigned char *)g[REG_RIP];
        if (ip[0] == 0x0F && ip[1] == 0xA2) {
            unsigned r[4];
            answer_cpuid((unsigned)g[REG_RAX], (unsigned)g[REG_RCX], r);
            g[REG_RAX] = r[0];
            g[REG_RBX] = r[1];
            g[REG_RCX] = r[2];
            g[REG_RDX] = r[3];
            g[REG_RIP] += 2;
            __atomic_add_fetch(&answered, 1, __ATOMIC_RELAXED);
            return;
        }
    }
    if (app_segv.sa_flags & SA_SIGINFO) {
        app_segv.sa_sigaction(sig, info, ctx);
    } else if (app_segv.sa_handler != SIG_DFL && app_segv.sa_handler != SIG_IGN) {
        app_segv.sa_handler(sig);
    } else {  /* the default action: the faulting instruction runs again and kills */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        real_sigaction(SIGSEGV, &dfl, NULL);
    }
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!real_sigaction)
        real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    if (sig != SIGSEGV || !installed)
        return real_sigaction(sig, act, old);
    if (old)
        *old = app_segv;
    if (act)
        app_segv = *act;
    return 0;
}

sighandler_t signal(int sig, sighandler_t handler)  /* glibc's signal() skips the wrapper above */
{
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

static void report(void)
{
    fprintf(stderr, "no_amx: %lu CPUID answered in pid %ld\n", answered, (long)getpid());
}

__attribute__((constructor)) static void no_amx_init(void)
{
    struct sigaction sa;
    if (!real_sigaction)
        real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    real_sigaction(SIGSEGV, &sa, &app_segv);
    installed = 1;
    if (syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) != 0) {
        fprintf(stderr, "no_amx: this CPU or kernel cannot make CPUID fault (arch_prctl ARCH_SET_CPUID)\n");
        _exit(97);  /* a run that believed itself without AMX would measure the wrong CPU */
    }
    const char *rep = getenv("NO_AMX_REPORT");
    if (rep && *rep && strcmp(rep, "0") != 0)
        atexit(report);
}
