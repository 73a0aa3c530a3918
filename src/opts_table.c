/* Every option of torch2pprof analyze, convert and torch2pprof-tui, once:
   the parsing, the --help texts and the man pages' OPTIONS read this table. */
#include "config.h"

#include "src/opts.h"

#define A OPTS_ANALYZE
#define C OPTS_CONVERT
#define T OPTS_TUI

const opt_def opts_table[] = {
    { OPT_OUTPUT, "output", 'o', "OUT", C, NULL,
      "write the profile to OUT (- : standard output, refused when it is a terminal); without -o, OUT is the last operand, taken only when it does not exist or is a pprof profile" },
    { OPT_TOP, "top", 0, "N", A | T, NULL,
      "operations to list (analyze: default 20; 0 lists every one)" },
    { OPT_SORT, "sort", 0, "KEY", A | T, NULL,
      "self (default), total, calls, name, avg, device_self, device_total (device = device_total); analyze also: alloc_size, alloc_count, size_increase (its Memory section), spread (several traces: max - min of the per-rank self time), and with --base delta_self, delta_total, delta_calls, delta_device_self, delta_device_total, delta_pct" },
    { OPT_JSON, "json", 0, NULL, A, NULL, "one JSON object, times in integer nanoseconds" },
    { OPT_STEPS, "steps", 0, NULL, A, NULL,
      "only the Steps section: each ProfilerStep# split by role as TensorBoard's Overview did, the average, the recommendations" },
    { OPT_KERNELS, "kernels", 0, NULL, A | C, NULL,
      "analyze: only the Kernels sections, as TensorBoard's Kernel view and GPU summary: kernels by name, by launching operator, per GPU (utilization, est. SM efficiency, est. occupancy, tensor cores); --json: \"kernels\", \"kernels_by_op\", \"gpus\". convert: only the GPU kernels' time, at the stacks that launched them (device_time) and on their streams (time), as the explorer's Kernels view exports it; --filter then tests the kernel's name alone" },
    { OPT_KERNEL, "kernel", 0, "NAME", C, NULL,
      "convert: --kernels of the kernel named NAME alone (its exact name: the explorer's e on the launchers of one kernel)" },
    { OPT_BY_LINE, "by-line", 0, NULL, A, NULL,
      "the top Python source lines (file:line, function, self, total) from python_function events or Call stacks; --json: \"lines\"" },
    { OPT_BY_SHAPE, "by-shape", 0, NULL, A | C, NULL,
      "analyze: operators by name and input shape as TensorBoard's Operator view grouped them (its tree: operators only, one call for an op calling itself alone; self time less its runtime calls; device time; tensor-core eligibility and share); --json always has \"ops_by_shape\". convert: those rows as stacks, as the explorer's Ops view by input shape exports it: each operator call of that tree at the stack of its ancestors in the tree, labelled input_shape, its samples its calls, its time its self time, its device_time the GPU time of its own launches, so that an operator's flat figures under go tool pprof -tagfocus input_shape=SHAPE (a regular expression: escape the brackets) are the row's (runtime calls and other non-operators are in no sample; no heap types); one TRACE" },
    { OPT_MODULES, "modules", 0, NULL, A | C, NULL,
      "analyze: the nn.Module hierarchy (python_function events with \"Python module id\") with each module's occurrences, operators, host and device self/total, as TensorBoard's Module view; --json always has \"modules\". convert: the stacks through an nn.Module call, with the other Python frames hidden (their time going to their caller, as go tool pprof -hide): each module's flat time is its host self time, cum its host total, as the explorer's Modules view exports it" },
    { OPT_VIEW, "view", 0, "VIEW", T, NULL,
      "the first view: ops (default), categories, tree, threads, steps (the default for a trace with two or more ProfilerStep#), ranks, allranks, memory, timeline, gpu, kernels, modules, collectives" },
    { OPT_STEP, "step", 0, "N|N-M", A | C | T, "Scope",
      "only steps N to M: CPU events that start in them, the GPU work they launched (several traces: each rank's steps N to M)" },
    { OPT_RANGE, "range", 0, "START:END", A | C | T, NULL,
      "only the time window [START, END), offsets from the trace's start (analyze --json: window_start_ns) with a unit: ns, us, ms, s (1.2s:1.5s; 120ms: runs to the end). An event counts when its start lies in the window, with all of its duration and self time; GPU work counts with the operator that launched it (by correlation), wherever it ran, GPU work with no launch by its own start; memory figures count the [memory] records whose time lies in the window; the Steps table lists the steps that overlap it; convert of several traces: each rank's window, from that rank's own start" },
    { OPT_RANK, "rank", 0, "N", A | C | T, NULL,
      "one rank of a job (several traces or a directory): analyze reports on it alone, convert writes its profile alone (labelled rank=N); the explorer opens on it" },
    { OPT_FOCUS, "focus", 0, "OP[>CHILD...]", A | C | T, NULL,
      "keep only the stacks through operator OP (the explorer's Enter on an operator), or at or below the call path OP>CHILD>... from the top of a stack (f on a Tree node; >OP: a path of one; of two siblings of one name in two categories, each is NAME{cat=CATEGORY}); a name no operator has is a POSIX extended regular expression over frame names, as go tool pprof -focus; repeat to narrow. analyze: every figure of its operators, categories, threads and streams counts these stacks alone, as convert writes them; a name that selects nothing in the trace is an error" },
    { OPT_CATEGORY, "category", 0, "CAT", A | C | T, NULL,
      "keep only the stacks through an operator of category CAT (Enter in Categories)" },
    { OPT_TRACK, "track", 0, "LABEL", A | C | T, NULL,
      "keep only the stacks of one thread or stream, named as the Threads view names it (\"PROCESS / THREAD\"; analyze --json: threads[].track), and the GPU work that ran on it" },
    { OPT_FILTER, "filter", 0, "TEXT", A | C | T, NULL,
      "keep only the stacks with a frame whose name contains TEXT (in any case unless TEXT has a capital: the explorer's filter, /)" },
    { OPT_IGNORE, "ignore", 0, "RE", C, NULL, "drop stacks with a frame matching RE" },
    { OPT_THREAD, "thread", 0, "RE", C, NULL,
      "keep only stacks of threads or streams whose label matches RE" },
    { OPT_NO_PYTHON, "no-python", 0, NULL, A | C | T, NULL,
      "no Python frames: Call stacks ignored and python_function events left out, their time going to their caller, as go tool pprof -hide (the explorer: p toggles)" },
    { OPT_SHORT_NAMES, "short-names", 0, NULL, A | C | T, NULL,
      "C++ names without return type, template arguments and parameters, as HTA's use_short_name (analyze --json: full_name too; convert: the full name stays as the system name; the explorer: s toggles)" },
    { OPT_KEEP_STEPS, "keep-steps", 0, NULL, A | C | T, NULL,
      "keep ProfilerStep#N apart instead of merging them as ProfilerStep*" },
    { OPT_NO_MEMORY, "no-memory", 0, NULL, C, NULL,
      "time sample types only (otherwise every profile has alloc_objects, alloc_space, inuse_objects, inuse_space with a device label, as Go heap profiles: zero without [memory] events, so that any two merge and diff)" },
    { OPT_BASE, "base", 0, "BASE", A | C | T, "Compare (what changed from BASE to TRACE)",
      "analyze: per operator and category, base and new figures and their deltas, sorted by |delta self| (+ only in TRACE, - only in BASE); convert: TRACE minus BASE per stack, as go tool pprof -diff_base (base samples negated, labelled pprof::base=true); the explorer: every view shows both traces with deltas (b switches new, base, delta)" },
    { OPT_PER_STEP, "per-step", 0, NULL, A, NULL,
      "divide each trace's figures by its number of kept steps first" },
    { OPT_BASE_STEP, "base-step", 0, "N", A, NULL,
      "with --step M: compare step N (of BASE, or of TRACE without --base) with step M of TRACE (N-M: a range of steps)" },
    { OPT_KERNEL_WAIT, "kernel-wait", 0, "US", A | T, "GPU (HTA's analyses)",
      "a gap on a stream shorter than US microseconds after the previous GPU event, not waiting for the CPU, is kernel wait; longer ones are other (default 30, HTA's consecutive_kernel_delay; the explorer: its GPU view)" },
    { OPT_RUNTIME_CUTOFF, "runtime-cutoff", 0, "US", A | T, NULL,
      "a launch call longer than US microseconds is a runtime outlier; shorter ones whose GPU event is shorter still are short kernels (default 50; the explorer: a launch marked * in the GPU view)" },
    { OPT_DELAY_CUTOFF, "launch-delay-cutoff", 0, "US", A | T, NULL,
      "a launch delay (GPU start - launch call end) longer than US microseconds is a long delay (default 100; the explorer: a launch marked * in the GPU view)" },
    { OPT_SEQ_OP, "sequence-op", 0, "NAME", A, NULL,
      "the frequent kernel sequences are those under calls of operators whose name contains NAME (default ProfilerStep: one sequence per step)" },
    { OPT_PARTIAL, "partial", 0, NULL, A | C | T, "Loading",
      "load what a truncated trace holds instead of failing; with several traces, go on without those that fail (the explorer's default)" },
    { OPT_STRICT, "strict", 0, NULL, T, NULL,
      "refuse a truncated trace (by default the explorer opens what was read, under a warning banner)" },
    { OPT_JOBS, "jobs", 0, "N", A | C | T, NULL,
      "threads at work: N tokenise one trace, several traces load N at a time (default: one per core; 1: one thread)" },
    { OPT_SOURCE_PATH, "source-path", 0, "DIR", T, "Explorer",
      "v on a Python frame shows its file from the path the trace recorded, else from under DIR (DIR/path, then DIR/ + the path less its leading directories, as pprof's -source_path)" },
    { OPT_NO_MOUSE, "no-mouse", 0, NULL, T, NULL,
      "leave the mouse to the terminal (its own text selection); by default the wheel scrolls, a click selects a row or a view's tab, a double-click folds a tree node or opens a row" },
    { OPT_REPLAY, "replay", 0, "KEYS", T, NULL,
      "no terminal: apply KEYS to the view and print the time of each key (<Up> <Down> <Left> <Right> <PgUp> <PgDn> <Home> <End> <Enter> <Esc> <BS> <Tab> <BTab> <F1> <Space> <lt> <CtrlU>; other characters are themselves; white space separates keys: \"3 E <Down> /conv <Enter> n\")" },
    { OPT_REPLAY_FILE, "replay-file", 0, "FILE", T, NULL, "the same, keys read from FILE" },
    { OPT_PRINT, "print", 0, NULL, T, NULL, "with --replay: print the final screen" },
    { OPT_SIZE, "size", 0, "WxH", T, NULL, "with --replay: the screen size (default 120x40)" },
    { OPT_HELP, "help", 'h', NULL, A | C | T, "Other", "print this help and exit" },
    { OPT_VERSION, "version", 'V', NULL, A | C | T, NULL, "print the version and exit" },
};

const size_t opts_count = sizeof opts_table / sizeof opts_table[0];

#define EXIT_CODES "Exit codes: 0 ok, 1 usage error, 2 input or output error.\n"

const opts_cmd opts_analyze = {
    "torch2pprof analyze", A,
    "usage: torch2pprof analyze [OPTIONS] TRACE\n"
    "       torch2pprof analyze [OPTIONS] DIR | TRACE TRACE...\n"
    "       torch2pprof analyze [OPTIONS] --base BASE TRACE\n",
    "Summarise a PyTorch profiler trace (Chrome trace JSON, plain or gzip; - reads\n"
    "standard input): totals, time by category, the Steps, the top operations,\n"
    "memory. Several traces, or a directory of them (one per rank of a job): the\n"
    "Ranks table, the straggler, and the operations summed over ranks with\n"
    "min/median/max per rank.\n",
    "The report goes to standard output; warnings to standard error.\n" EXIT_CODES
};

const opts_cmd opts_convert = {
    "torch2pprof convert", C,
    "usage: torch2pprof convert [OPTIONS] -o OUT.pb.gz TRACE...|DIR\n"
    "       torch2pprof convert [OPTIONS] TRACE OUT.pb.gz\n"
    "       torch2pprof [OPTIONS] TRACE OUT.pb.gz        (the same as convert)\n",
    "Write a pprof profile of a PyTorch profiler trace, for go tool pprof.\n"
    "One sample per call stack and thread: samples = calls ending at that stack,\n"
    "time = their self time (so flat = self, cum = time on the stack, total = self\n"
    "time summed over every thread and stream, which is not wall time),\n"
    "device_time = GPU time launched there. Labels: thread, pid, tid; device and\n"
    "stream on GPU work (go tool pprof -tagfocus thread=stream); rank when the trace\n"
    "gives one (distributedInfo.rank, or rank-3, rank3, rank_3, worker3 in its name);\n"
    "step: the ProfilerStep# a call belongs to (go tool pprof -tagfocus step=1011).\n"
    "Several traces, or a directory of them (one per rank of a job), with -o: one\n"
    "profile, every sample labelled with its rank (go tool pprof -tagfocus rank=3).\n"
    "Python frames (python_function events, args \"Call stack\") become functions\n"
    "with a file and line: go tool pprof -list FUNC -source_path DIR, -lines.\n",
    "Nothing is written but OUT, and never over a trace: without -o, an OUT that\n"
    "exists must be a pprof profile (a trace, any other file, or one of the inputs\n"
    "is refused). OUT is written to a temporary file beside it and renamed (removed\n"
    "if the write fails or is interrupted; a file size limit, ulimit -f, is an\n"
    "error: File too large); an OUT that is a FIFO or a device is written in place;\n"
    "a symbolic link as OUT is written through: its target gets the profile, and is\n"
    "created when missing. The summary line (\"wrote ...\") goes to standard error.\n"
    "The profile's comments hold the command that writes it again\n"
    "(go tool pprof -comments).\n"
    EXIT_CODES
};

const opts_cmd opts_tui = {
    "torch2pprof-tui", T,
    "usage: torch2pprof-tui [OPTIONS] [TRACE]\n"
    "       torch2pprof-tui [OPTIONS] DIR | TRACE TRACE...\n"
    "       torch2pprof-tui [OPTIONS] --base BASE TRACE\n"
    "       torch2pprof-tui --replay KEYS [--print] [OPTIONS] [TRACE]\n",
    "Explore a PyTorch profiler trace: operators, categories, the call tree, threads,\n"
    "steps, memory, a timeline. Without TRACE, opens the sample trace that ships with\n"
    "torch2pprof. A directory or several traces are the ranks of one job, loaded in\n"
    "parallel: the Ranks view lists them (Enter shows one rank in every view), All\n"
    "ranks merges them.\n",
    "Press ? in the explorer for the keys. NO_COLOR disables colours; a locale that is\n"
    "not UTF-8 (LANG=C) gets ASCII glyphs.\n"
    "Exit codes: 0 ok, 1 usage error, 2 input or output error (or not a terminal),\n"
    "130 cancelled.\n"
};
