"""Walking the paths from one entry of a code block into a fused function's text, instruction kind by kind.

The walk follows the instructions from the head as the step machine would run them (branches both ways, jumps,
loop steps, calls run into, returns to a known caller) and writes each kind's text (:data:`.fuselimits.FUSED`),
until a path must leave to the engine; then it wraps the lines in the function with its error handler and
compiles it lazily. The bookkeeping it writes on (the frame's pc, the counts, the loop pairs in locals) is
:class:`.fusebook.TraceBook`'s; the ruleset-wide work (stand-ins, call sites' copies) is :class:`.fuse.Fuser`'s.
"""

from __future__ import annotations

from typing import Any

from liturgy.interpreter.codegen import fusepick
from liturgy.interpreter.codegen.fusebook import At, TraceBook
from liturgy.interpreter.codegen.fuselimits import MAX_CALL, MAX_CALLS, MAX_INLINE_LINES, MAX_NODES, MAX_PATH, MAX_TURNS
from liturgy.interpreter.codegen.locals import direct_writes
from liturgy.interpreter.compiler.instructions import MAX_FRAMES, _push
from liturgy.interpreter.runtime.errors import GAME_ENDED

# the text of the seats (`players`) as a sequence: a tuple already (Tables.players)
SEATS = "s.tables.players"


class Trace(TraceBook):
    """Writes one fused function, entered at ``head`` of ``code`` (a ruleset's Code or a call site's copy)."""

    def entry_pair(self) -> str | None:
        """The loop pair held at the top of every turn of a looping function: the head's, when it is a `for`'s
        next step (loaded before the ``while``, then carried in locals from turn to turn)."""
        info = self.fuser.info(self.code.ins[self.head])
        return info[2] if self.turn and info is not None and info[1] == "for_next" else None

    def next_turn(self, k: int, frpc: int, kv: int) -> None:
        """A jump back to the head in the function's own frame: run the next turn in this call (``continue``)
        when the turns done, this one (``k``) and a longest next one stay within ``MAX_CALL`` instructions.

        The engine's call and dispatch per turn of a loop whose body mostly neither calls nor chooses (a pass
        over the players that acts for a few) cost more than the turn; and the loop's pair then lives in locals
        for the whole call. The next turn starts as a fresh call would find the frame: its pc at the head, the
        pairs other than the head's written back and unbound, the head's held (reloaded if a call dropped it).
        """
        room = MAX_CALL - self.turn - k
        if room < 0:
            return
        snap = self.snapshot()
        self.emit(f"if _Fn <= {room}:")
        self.depth += 1
        self.emit(f"_Fn += {k}")
        if frpc != self.head:
            self.emit(f"fr[1] = {self.head}")
        if kv:
            self.emit("_Fq = 0")
        key = self.entry_pair()
        others = sorted(self.bound - {key})
        kept = key in self.held
        self.held = {other: how for other, how in self.held.items() if other != key}
        names = self.head_names() if self.hold_head else ()
        self.mixed = self.mixed or any(var not in self.vars.held for var in names)
        self.emits(self.vars.keep(names))  # the head's variables stay in locals
        self.flush(variables=False)
        if others:
            self.emit("del " + ", ".join(self.pair(other)[0] for other in others))
        if key is not None and not kept:
            self.load(key, length=True)
        elif key is not None and key not in self.lens:  # the turns test the length local
            items, _, n = self.pair(key)
            self.emit(f"{n} = len({items})")
        self.emit("continue")
        self.depth -= 1
        self.restore(snap)

    def head_names(self) -> tuple[str, ...]:
        """The variables the head's `for` step binds, in a function that turns through that loop."""
        info = self.fuser.info(self.code.ins[self.head])
        return tuple(info[3]) if self.turn and info is not None and info[1] == "for_next" else ()

    def walk(self, at: At, pc: int, k: int, frpc: int, kv: int, path: frozenset[tuple[int, int, int, int]]) -> None:
        """Write instruction ``pc`` of ``at.code`` and what follows; ``k`` instructions done, ``frpc`` in the frame."""
        fuser = self.fuser
        if at is self.root and pc == self.head and k > 0:  # the next turn of a loop the function starts at
            self.back = True
            if self.turn:
                self.next_turn(k, frpc, kv)
                self.leave(at, pc, k, frpc)  # past the room: the engine calls the function again
                return
        fn = at.code.ins[pc]
        info = fuser.info(fn)
        # an instruction is written at most MAX_TURNS times on one path: a loop's body that many turns
        turn = next((n for n in range(MAX_TURNS) if (id(at.code), pc, at.depth(), n) not in path), None)
        if info is None or k >= MAX_PATH or turn is None or self.nodes >= MAX_NODES:
            self.leave(at, pc, k, frpc)
            return
        self.nodes += 1
        kind = info[1]
        path = path | {(id(at.code), pc, at.depth(), turn)}
        if kind == "run":
            body = fuser.run_text(fn) if self.inline else None
            cost = 0 if body is None else len(body) - fuser.spliced(fn)  # a proc's body written in: its call's line
            if body is not None and self.inlined + cost <= MAX_INLINE_LINES:
                kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
                # The run's own statements, in this function's locals: its temporaries have names unique in
                # the ruleset (but a proc body written in place, whose copies each bind theirs first), it reads
                # ``env`` and ``s`` like this function, and it leaves the pc alone
                # (the run function's closing ``fr[1] += 1`` is written when this function stops or syncs).
                # It reads and writes the held variables' locals (or they are written back first).
                self.inlined += cost
                pre, text = self.vars.rewrite("\n".join(body), False, self.fuser.effects)
                self.emits(pre)
                body = text.split("\n")
                pad = "    " * (self.depth - 1)
                self.lines.extend(pad + line for line in self.ended(body, k))
                self.walk(at, pc + 1, k + 1, frpc, kv, path)
            else:
                kv, _ = self.sync(pc, k, frpc, kv)  # the run's function moves the frame's pc on
                self.emits(self.vars.release())
                self.emit(f"{fuser.const(fn)}(s, fr)")
                self.walk(at, pc + 1, k + 1, pc + 1, kv, path)
        elif kind == "goto":
            self.walk(at, info[2], k + 1, frpc, kv, path)
        elif kind == "branch":
            _, _, cond, then_pc, else_pc = info
            kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
            pre, cond = self.vars.rewrite(cond, True, self.fuser.effects)
            self.emits(pre)
            self.emit(f"if {cond}:")
            self.depth += 1
            snap = self.snapshot()
            self.walk(at, then_pc, k + 1, frpc, kv, path)
            self.restore(snap)
            self.depth -= 1
            self.emit("else:")
            self.depth += 1
            self.walk(at, else_pc, k + 1, frpc, kv, path)
            self.depth -= 1
        elif kind == "for_init":
            _, _, seq, key, built = info
            kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
            # the loop's pair in this function's locals, written to ``env`` only where the frame can be seen
            items, i, _ = self.pair(key)
            pre, seq = self.vars.rewrite(seq, True, self.fuser.effects)
            self.emits([*pre, *built])  # ``built``: the items' own loop, which reads only the game (seatgate.py)
            # the snapshot ``tuple(...)`` makes is the seats' own tuple when the loop is over them (Tables.players
            # is one: ``tuple`` of an exact tuple returns it), so the call is left out there
            self.emit(f"{items} = {seq}" if seq == SEATS else f"{items} = tuple({seq})")
            self.emit(f"{i} = 0")
            self.held[key] = "fresh"
            self.bound.add(key)
            self.lens.discard(key)
            self.zero.add(key)
            self.walk(at, pc + 1, k + 1, frpc, kv, path)
        elif kind == "for_next":
            self.for_next(at, pc, k, frpc, kv, path, info)
        elif kind == "call_end":  # `do`/`fire`: it moves the pc on itself, then pushes the callee's frame
            self.call(at, pc, k, frpc, kv, path, info)
        elif kind == "ret":
            if at.up is None:  # the frame is gone, its pairs and variables with it
                self.held, self.bound, self.lens, self.zero = {}, set(), set(), set()
                self.vars.held = {}
                self.emit("s.frames.pop()")
                self.emit(f"return {self.done(k)}")
                self.longest = max(self.longest, k + 1)
                return
            # the caller is known: on into its code after the call, in its frame
            self.drop()
            self.emit("s.frames.pop()")
            self.emit("fr = s.frames[-1]")
            self.emit("env = fr[2]")
            self.walk(at.up, at.ret, k + 1, at.ret, kv, path)
        elif kind == "stop":  # may ask for a decision: the engine runs it at a path's head
            self.stop(at, pc, k, frpc, kv)
        else:
            raise AssertionError(f"fuse has no rule for the instruction kind {kind!r}: declare it in FUSED")

    def ended(self, body: list[str], k: int) -> list[str]:
        """A run's lines with each `end game` (``raise _GameOver`` on a line of its own) made this function's
        return of ``GAME_ENDED``, after adding the instructions completed before the run to the step count, as the
        raise's handler below would (statement text holds no handler that could catch the raise, and a
        ``finally`` runs on a return as on a raise). Every finished game used to pay the exception."""
        count = f"_Fn + {k}" if self.turn else str(k)
        out = []
        for line in body:
            code = line.lstrip()
            if code == "raise _GameOver":
                pad = line[:len(line) - len(code)]
                # neither the pc nor the loop pairs and variables held in locals are written back, as the raise's
                # handler would: the engine scores the game at once (Game._game_over), and scoring clears the
                # frames before anything reads them (session 20; GAME_ENDED is returned to Game._advance alone)
                out += [f"{pad}s.steps += {count}", f"{pad}return {self.fuser.const(GAME_ENDED)}"]
            else:
                out.append(line)
        return out

    def for_next(self, at: At, pc: int, k: int, frpc: int, kv: int, path: frozenset[tuple[int, int, int, int]],
                 info: tuple[Any, ...]) -> None:
        """A loop's next item (into the frame's variable, as the original does), or its end."""
        _, _, key, names, end = info
        if len(names) > 1:  # unpacking a pair may raise, as in the original
            kv, frpc = self.sync(pc, k, frpc, kv, lazy=True)
        items, i, n = self.pair(key)
        how = self.held.get(key)
        if how is None:  # from the frame (the loop started before this call, or a callee ran in between)
            self.load(key)
            how = self.held[key] = "clean"
            self.bound.add(key)
        zero = key in self.zero
        snap = self.snapshot()
        # The loop's next turn is written first, its end after (session 23): the text is the same, but the walk
        # spends the function's budget (MAX_NODES, MAX_INLINE_LINES) on the turns, which a loop runs more often
        # than its end (the end of an inner loop, written first, used to take it all for the code after the
        # loop, copied into each branch, and the next turn of the loop ended the call)
        outer, self.lines = self.lines, []
        at_i = "0" if zero else i
        self.emit(f"{self.vars.bind(names)} = {items}[{at_i}]")  # written to ``env`` where it can be seen
        self.emit(f"{i} = 1" if zero else f"{i} += 1")
        self.zero.discard(key)
        if how == "clean":
            self.held[key] = "dirty"
        self.walk(at, pc + 1, k + 1, frpc, kv, path)
        body, self.lines = self.lines, outer
        self.restore(snap)
        if zero:
            self.emit(f"if not {items}:")
        else:
            self.emit(f"if {i} >= {n if key in self.lens else f'len({items})'}:")
        self.depth += 1
        # the loop's end: the frame's pair goes (one a `break` left behind too, where this function's was never
        # written), and so does the local, so that the error handler does not write it back
        self.emit(f"del env[{key!r}], {items}" if how != "fresh" else f"env.pop({key!r}, None)")
        if how == "fresh":
            self.emit(f"del {items}")
        self.emits(self.vars.resolve())  # an earlier turn's variables, at the head of a function that turns
        del self.held[key]
        self.bound.discard(key)
        self.lens.discard(key)
        self.zero.discard(key)
        self.walk(at, end, k + 1, frpc, kv, path)
        self.depth -= 1
        self.lines.extend(body)

    def call(self, at: At, pc: int, k: int, frpc: int, kv: int, path: frozenset[tuple[int, int, int, int]],
             info: tuple[Any, ...]) -> None:
        """A `do` or `fire`: the instruction pushes the callee's frame. A proc's call runs on into the callee.

        The callee's frame is the one the instruction pushed (same pc, same environment: saves and errors see
        the step machine's frames), given the call site's copy of the callee's Code, whose fused functions
        return into this caller's code after the call rather than to the engine. A card effect's call (its
        callee is found per call), a `fire`, a callee not worth a copy per call site (:meth:`Fuser.asks`), a
        recursive call and calls nested past ``MAX_CALLS`` end the path; the first two only when they pushed a
        frame (:meth:`through`).
        """
        fuser = self.fuser
        target = info[2].code if len(info) > 2 else None
        into = not (target is None or not fuser.asks(target) or at.depth() >= MAX_CALLS or id(target) in at.chain())
        pushed = fuser.call_text(info[0]) if into and self.inline else None
        if pushed is not None and self.inlined + len(pushed[0]) > MAX_INLINE_LINES:
            pushed = None
        # the instruction's own lines, written here, set the frame's pc themselves (``fr[1] = pc + 1`` before the
        # push) and read no pc before: until then, the error handler writes it (session 20: one store less a `do`)
        kv, _ = self.sync(pc, k, frpc, kv, lazy=pushed is not None)
        self.flush()  # the callee's frame (and the engine, after it) sees this one's
        if not into:
            self.emits(self.vars.forget())
            self.emit(f"{fuser.const(info[0])}(s, fr)")
            if target is None:  # a card effect's `do`, a `fire`: on past it when nothing was pushed
                self.through(at, pc, k, kv, path)
                return
            self.emit(f"return {self.done(k)}")
            self.longest = max(self.longest, k + 1)
            return
        assert target is not None
        site = fuser.call_site(target, at.code, pc + 1)
        if pushed is not None:
            # the instruction's own lines bind the callee's environment, reading the caller's variables held in
            # locals (``{'p': _Fv1}``, not ``env['p']`` written just before: flushed above, so the error handler
            # writes back the same values); then what it does, the frame pushed here (past the deepest chain,
            # ``_push`` raises the same error)
            lines, env2 = pushed
            self.inlined += len(lines)
            pre, text = self.vars.rewrite("\n".join(lines), False, fuser.effects)
            self.emits(pre)
            pad = "    " * (self.depth - 1)
            self.lines.extend(pad + line for line in text.split("\n"))
            self.drop()
            self.emit(f"fr[1] = {pc + 1}")
            self.emit(f"if len(s.frames) > {MAX_FRAMES}:")
            self.emit(f"    {fuser.const(_push)}(s, {fuser.const(target)}, {env2})")
            self.emit(f"fr = [{fuser.const(site)}, 0, {env2}]")
            self.emit("s.frames.append(fr)")
            self.emit(f"env = {env2}")
        else:
            self.drop()
            self.emit(f"{fuser.const(info[0])}(s, fr)")
            self.emit("fr = s.frames[-1]")
            self.emit(f"fr[0] = {fuser.const(site)}")
            self.emit("env = fr[2]")
        self.walk(At(target, site, at, pc + 1), 0, k + 1, 0, kv, path)

    def through(self, at: At, pc: int, k: int, kv: int, path: frozenset[tuple[int, int, int, int]]) -> None:
        """After a card effect's `do` or a `fire`, just called (it moved the frame's pc on): the path ends if it
        pushed a frame (a callee that may ask for a decision: the engine runs it next, as before), else the
        function goes on after it in the same frame (session 23).

        Which callee runs is known only per call (the card's effect, the window's handlers), and most are plain
        functions (``Callable_.pure``), called inside the instruction with an environment of their own: they
        run no step-machine instruction and leave this frame as it was, its pc moved on. So nothing the frame
        holds changed: the pairs held in locals were written back before the call and stay right; the
        variables held in locals were dropped before it (reads go to ``env`` again). The step count is the
        same either way: the instruction is one step, the callee's closure none.
        """
        self.emit("if s.frames[-1] is not fr:")
        self.emit(f"    return {self.done(k)}")
        self.longest = max(self.longest, k + 1)
        self.walk(at, pc + 1, k + 1, pc + 1, kv, path)

    def stop(self, at: At, pc: int, k: int, frpc: int, kv: int) -> None:
        """A `choose` or `simultaneously` after other instructions: run it here rather than return to the engine.

        It returns True when it asks for a decision: it ran no instruction (the engine takes back the call's
        turn), so the ``k`` before it are added to the step count here. Otherwise it moved the frame's pc (no
        option: on to its `otherwise` or its end), one more instruction; the engine runs on from there. In a
        playout, a choice whose text can pick in place (codegen/fusepick.py) returns with the pick bound instead.
        """
        if k == 0:  # at the head: the engine runs it as it is
            self.nodes -= 1
            self.leave(at, pc, k, frpc)
            return
        fn = at.code.ins[pc]
        lines = self.fuser.choice_text(fn) if self.inline else None
        how = fusepick.plan(self, fn) if lines is not None and self.inlined + len(lines) <= MAX_INLINE_LINES else None
        self.sync(pc, k, frpc, kv)  # not lazy: the text's `no option` error leaves its own pc in the frame
        frpc = pc
        self.flush()  # a suspended frame is saved, cloned and viewed as the step machine's
        self.emits(self.vars.forget())  # the choice's text uses ``env`` itself
        self.longest = max(self.longest, k + 1)
        if how is not None and lines is not None:
            self.inlined += len(lines)
            fusepick.write(self, at, pc, k, lines, how)
            return
        if lines is not None and self.inlined + len(lines) <= MAX_INLINE_LINES:
            # the choice's own text (it reads ``env``, ``fr`` and ``s`` like this function), its returns made ours
            self.inlined += len(lines)
            for line in lines:
                body = line.lstrip()
                pad = "    " * self.depth + line[:len(line) - len(body)]
                if body == "return True":
                    self.lines += [f"{pad}s.steps += {self.done(k)}", f"{pad}return True"]
                elif body == "return False":
                    self.lines.append(f"{pad}return {self.done(k)}")
                else:
                    self.lines.append(pad + body)
            return
        self.emit(f"if {self.fuser.const(at.code.ins[pc])}(s, fr):")
        self.emit(f"    s.steps += {self.done(k)}")
        self.emit("    return True")
        self.emit(f"return {self.done(k)}")

    def source(self, turns: bool = True) -> tuple[str, str, int] | None:
        """The fused function's name, text and longest run of one call, or None when it would run a single
        instruction. With ``turns``, a function some of whose paths jump back to its head in its own frame is
        walked again with those jumps turned into the next turn of a ``while`` loop (:meth:`next_turn`): its
        calls then run up to ``MAX_CALL`` instructions, which is what it reports as its longest."""
        code = self.code
        site = self.fuser.sites.get(id(code))
        up = At(site[0], None, None, 0) if site is not None else None
        base = self.fuser.base.get(id(code), code)
        self.root = At(base, code, up, site[1] if site is not None else 0)
        key = self.entry_pair()
        self.vars.maybe = self.head_names() if self.hold_head else ()
        if key is not None:  # the head's pair, loaded once before the loop and carried from turn to turn
            # "fresh": a later turn may come back here from the loop's own `for` start (an outer loop's next
            # turn), whose pair the frame does not hold yet
            self.load(key, length=True)
            self.held[key] = "fresh"
            self.bound.add(key)
            self.lens.add(key)
            self.emit("while True:")
            self.depth += 1
        elif self.turn:
            self.emit("while True:")
            self.depth += 1
        self.walk(self.root, self.head, 0, self.head, 0, frozenset())
        if self.longest < 2:
            return None
        if self.mixed:  # the head loop's variables are not held on every way back: released there instead
            again = Trace(self.fuser, code, self.head, self.inline, self.turn, hold_head=False)
            made = again.source(turns=False)
            self.exits, self.inlined, self.looped = again.exits, again.inlined, again.looped
            return made
        if turns and self.back and not self.turn and 2 * self.longest <= MAX_CALL:
            again = Trace(self.fuser, code, self.head, self.inline, turn=self.longest)
            made = again.source(turns=False)
            assert made is not None  # the same walk up to the jumps back: it runs at least as far
            self.exits, self.inlined, self.looped = again.exits, again.inlined, True
            return made
        name = self.fuser.name()  # the entry's own (codegen/tracecache.py)
        # on an error, the pairs still held in locals are written back (an unbound one is not held: its loop
        # ended, or the frame changed after it was written back, or it was never read)
        back = "".join(f"        try:\n            env[{key!r}] = (_Fa{n}, _Fb{n})\n        except NameError:\n"
                       "            pass\n" for key, n in self.pairs.items()) + self.vars.handler()
        start, count = ("_Fq = _Fn = 0", "_Fn + _Fk") if self.turn else ("_Fq = 0", "_Fk")
        table = [where for where, _ in sorted(self.qs.items(), key=lambda item: item[1])]
        at = ("        if _Fp is not None:\n            fr[1] = _Fp\n" if any(pc is not None for pc, _ in table)
              else "")
        text = (f"def {name}(s, fr):\n    env = fr[2]\n    {start}\n    try:\n" + "\n".join(direct_writes(self.lines))
                + f"\n    except BaseException:\n        _Fp, _Fk = {self.fuser.const(tuple(table))}[_Fq]\n" + at
                + f"        s.steps += {count}\n" + back + "        raise\n")
        return name, text, MAX_CALL if self.turn else self.longest
