/*
 * Leasehold's lease protocol and the scheduler's per-firing rule, for Spin.
 *
 *   spin -a lease.pml && gcc -O2 -DSAFETY -DCOLLAPSE -o pan pan.c && ./pan -m5000000
 *   (or: bash scripts/check-model.sh, which also checks the broken variants below)
 *
 * What is modelled (see docs/architecture.md, "The protocol, model-checked"):
 *   - N = 3 replicas and one store holding one lease: holder token, time left on the store's
 *     clock, watermark (last firing claimed), fence counter.
 *   - claim(firing) / renew(token) / release(token), each one atomic step on the store.
 *   - Time: a Tick process advances the store's clock (the lease's time left) and every
 *     replica's monotonic clock. The store's clock may run ahead of the replicas' by up to
 *     DRIFT ticks during one lease (rate skew; a replica whose clock runs fast only stops
 *     earlier). Ticks can happen at any moment, so any step of any replica can be delayed
 *     arbitrarily long: that is a pause (GC, SIGSTOP) longer than the TTL.
 *   - Messages: one FIFO channel each way per replica, never lost while the store runs, but
 *     delivered with any delay (a partition that holds the bytes and heals). A replica may
 *     give up waiting at any moment (command timeout); the answer may still come and is
 *     then ignored, and the request may still reach the store later (a ghost claim).
 *   - Crashes: a replica forgets everything (its pending answers are ignored).
 *   - Store restarts: connections drop (pending requests and answers are lost, waiting
 *     replicas see an error). With persistence the lease survives; with -DVOLATILE it is lost.
 *   - Wall clocks: every replica may claim any firing at any moment, which covers every
 *     skew, late timer, catch-up and coalescing the scheduler can produce.
 *
 * The per-firing rule checked here: a claim's answer starts the job only if the replica's
 * monotonic clock says less than TTL - MARGIN has passed since it SENT the claim; a renewal
 * extends the validity to TTL - MARGIN from the moment the renewal was SENT; the job acts
 * only while validity remains, and stops (lease lost) when it runs out.
 *
 * Properties (assertions; checked in every reachable state):
 *   P1 mutual exclusion: at most one replica believes it holds the lease at any store time.
 *   P2 one execution per firing.
 *   P3 fences strictly increase across successive holders (in the order they start).
 *   P4 a holder acts (starts, runs a step of the job) only while the store agrees that its
 *      token holds a live lease: nobody acts on a lease past its validity.
 *
 * Broken variants, each of which the checker must reject (scripts/check-model.sh):
 *   -DBROKEN_ARRIVAL        validity counted from the answer's arrival instead of the send
 *   -DBROKEN_LATE_START     a claim answer that arrives after the validity still starts the job
 *   -DBROKEN_NO_WATERMARK   the store grants a claim for a firing already claimed
 *   -DBROKEN_NO_MARGIN      no safety margin although the replica's clock may run slow
 *   -DBROKEN_NO_TOKEN       a renewal does not compare the holder's token
 *   -DVOLATILE              the store restarts without persistence
 */

#define N 3            /* replicas */
#define K 2            /* firings */
#define TTL 3          /* lease time to live, in ticks */
#define DRIFT 1        /* ticks the store's clock may gain on the replicas' clocks during one lease */
#ifdef BROKEN_NO_MARGIN
#define MARGIN 0
#else
#define MARGIN 1       /* safety margin; must be >= DRIFT */
#endif
#define VALID (TTL - MARGIN)
#define CRASHES 1      /* replica crashes in one behaviour */
#define RESTARTS 1     /* store restarts in one behaviour */

mtype = { CLAIM, RENEW, RELEASE, WON, REFUSED, RENEWED };

/* ---- the store ---------------------------------------------------------------------------- */
byte sHolder;          /* token of the last holder; the lease is live iff sLeft > 0 */
byte sLeft;            /* store-clock ticks left on the lease */
byte sWater;           /* watermark: last firing claimed (0 = none) */
byte sFence;           /* fence counter, never reset by release or expiry */
byte sDrift;           /* store-clock ticks the current lease has gained on the replicas' clocks */
byte nextToken = 1;    /* stands for a fresh 128-bit random token */
byte restartsLeft = RESTARTS;

chan req[N] = [1] of { mtype, byte };           /* kind, firing or token */
chan rep[N] = [1] of { mtype, byte, byte };     /* kind, fence, token */

/* ---- the replicas ------------------------------------------------------------------------- */
#define IDLE 0
#define CLAIMING 1
#define RUNNING 2
byte st[N];            /* IDLE, CLAIMING, RUNNING */
byte fir[N];           /* firing being claimed or run */
byte tok[N];
byte vEl[N];           /* local ticks since the send that granted the current validity (or the claim) */
byte rEl[N];           /* local ticks since the pending renewal was sent */
bool renewing[N];
byte crashesLeft = CRASHES;

/* ---- observations for the properties ------------------------------------------------------ */
byte ran[K + 1];       /* executions started per firing */
byte lastFence;        /* fence of the last holder that started */

/* nothing of this replica's is on the wire: it sends one request at a time, and after giving
   up on one it waits until that request's answer has come (or the connection dropped) */
#define quiet(i) (empty(req[i]) && empty(rep[i]))
#define believes(i) (st[i] == RUNNING && vEl[i] < VALID)
/* P1, checked whenever a believer acts: every state where two believe has such a step */
#define alone(i) (((i) == 0 || !believes(0)) && ((i) == 1 || !believes(1)) && ((i) == 2 || !believes(2)))
#define storeAgrees(i) (sLeft > 0 && sHolder == tok[i])

inline serve(i) {
  byte kind, arg;
  req[i]?kind,arg;
  if
  :: kind == CLAIM ->
     if
#ifdef BROKEN_NO_WATERMARK
     :: sLeft == 0 ->
#else
     :: sLeft == 0 && arg > sWater ->
#endif
        sWater = arg; sFence++; sHolder = nextToken; nextToken++; sLeft = TTL; sDrift = 0;
        rep[i]!WON,sFence,sHolder
     :: else -> rep[i]!REFUSED,0,0
     fi
  :: kind == RENEW ->
     if
#ifdef BROKEN_NO_TOKEN
     :: sLeft > 0 -> sLeft = TTL; sDrift = 0; rep[i]!RENEWED,0,0
#else
     :: sLeft > 0 && sHolder == arg -> sLeft = TTL; sDrift = 0; rep[i]!RENEWED,0,0
#endif
     :: else -> rep[i]!REFUSED,0,0
     fi
  :: kind == RELEASE ->
     if
     :: sLeft > 0 && sHolder == arg -> sLeft = 0; sDrift = 0
     :: else -> skip
     fi                    /* a release has no answer anybody waits for */
  fi;
  kind = 0; arg = 0
}

inline drain(i) {
  do
  :: req[i]?_,_
  :: rep[i]?_,_,_
  :: empty(req[i]) && empty(rep[i]) -> break
  od
}

active proctype Store() {
  do
  :: atomic { nempty(req[0]) && empty(rep[0]) -> serve(0) }
  :: atomic { nempty(req[1]) && empty(rep[1]) -> serve(1) }
  :: atomic { nempty(req[2]) && empty(rep[2]) -> serve(2) }
  :: atomic {
       restartsLeft > 0 -> restartsLeft--;
       drain(0); drain(1); drain(2);
#ifdef VOLATILE
       sHolder = 0; sLeft = 0; sDrift = 0; sWater = 0; sFence = 0
#endif
     }
  od
}

/* a replica's measurement is capped at VALID: from there on it only says "expired" */
inline advance(e) {
  if :: e < VALID -> e++ :: else -> skip fi
}

active proctype Tick() {
  do
  :: atomic {
       /* the store's clock; it may run up to DRIFT ticks fast during one lease */
       if
       :: sLeft > 0 -> sLeft--
       :: sLeft > 1 && sDrift < DRIFT -> sLeft = sLeft - 2; sDrift++
       :: else -> skip
       fi;
       /* every replica's monotonic clock */
       if :: st[0] != IDLE -> advance(vEl[0]) :: else -> skip fi;
       if :: renewing[0] -> advance(rEl[0]) :: else -> skip fi;
       if :: st[1] != IDLE -> advance(vEl[1]) :: else -> skip fi;
       if :: renewing[1] -> advance(rEl[1]) :: else -> skip fi;
       if :: st[2] != IDLE -> advance(vEl[2]) :: else -> skip fi;
       if :: renewing[2] -> advance(rEl[2]) :: else -> skip fi
     }
  od
}

inline stopRunning(i) {
  st[i] = IDLE; fir[i] = 0; tok[i] = 0; vEl[i] = 0;
  renewing[i] = false; rEl[i] = 0
}

inline start(i, f, t) {
  /* P2 */ ran[fir[i]]++; assert(ran[fir[i]] <= 1);
  /* P3 */ assert(f > lastFence); lastFence = f;
  tok[i] = t; st[i] = RUNNING; fir[i] = 0;
#ifdef BROKEN_ARRIVAL
  vEl[i] = 0;
#endif
  /* P4: starting the job is an act */ assert(storeAgrees(i))
}

active [N] proctype Replica() {
  byte me = _pid - 2;   /* Store and Tick are pids 0 and 1 */
  byte k, f, t;
  do
  /* claim any firing (covers skewed wall clocks, late timers, catch-up) */
  :: atomic {
       st[me] == IDLE && quiet(me) ->
       if :: fir[me] = 1 :: fir[me] = 2 fi;
       req[me]!CLAIM,fir[me]; st[me] = CLAIMING; vEl[me] = 0
     }
  /* an answer arrives */
  :: atomic {
       nempty(rep[me]) -> rep[me]?k,f,t;
       if
       :: st[me] == CLAIMING ->
          if
#if defined(BROKEN_LATE_START) || defined(BROKEN_ARRIVAL)
          :: k == WON -> start(me, f, t)
#else
          :: k == WON && vEl[me] < VALID -> start(me, f, t)
#endif
          :: else -> stopRunning(me)   /* refused, or won too late: the lease lapses by its TTL */
          fi
       :: st[me] == RUNNING && renewing[me] ->
          if
          :: k == RENEWED ->
#ifdef BROKEN_ARRIVAL
             vEl[me] = 0;
#else
             vEl[me] = rEl[me];
#endif
             renewing[me] = false; rEl[me] = 0
          :: else -> stopRunning(me)   /* refused renewal: lease lost */
          fi
       :: else -> skip                 /* the answer to a request given up, or to a release */
       fi;
       k = 0; f = 0; t = 0
     }
  /* give up waiting (command timeout), or the connection dropped */
  :: atomic { st[me] == CLAIMING -> stopRunning(me) }
  :: atomic { st[me] == RUNNING && renewing[me] -> renewing[me] = false; rEl[me] = 0 }
  /* the job acts: only while validity remains */
  :: atomic { believes(me) -> assert(storeAgrees(me)); assert(alone(me)) }
  /* renew */
  :: atomic {
       st[me] == RUNNING && !renewing[me] && quiet(me) ->
       req[me]!RENEW,tok[me]; renewing[me] = true; rEl[me] = 0
     }
  /* the watchdog: validity ran out, stop the job (lease-lost, no release) */
  :: atomic { st[me] == RUNNING && vEl[me] >= VALID -> stopRunning(me) }
  /* the job ends: release */
  :: atomic { st[me] == RUNNING && !renewing[me] && quiet(me) -> req[me]!RELEASE,tok[me]; stopRunning(me) }
  /* crash: forget everything; answers to the old incarnation are ignored */
  :: atomic { crashesLeft > 0 && st[me] != IDLE -> crashesLeft--; stopRunning(me) }
  od
}

