/*
 * What learning did on a file, at its close: into its statistics (the
 * pattern with the most calls, per direction) and, for rank 0 to keep, the
 * store's entries.
 */
#include "learn/learner.h"

#include <stdio.h>

void ferry_learn_close(const ferry_learner *learn, ferry_learn_mode mode, ferry_learn_summary *out,
                       ferry_remember *r)
{
    for (int d = 0; d < 2; d++) {
        const ferry_learner *l = &learn[d];
        const ferry_learn_slot *top = NULL;
        int used = 0;
        for (int i = 0; i < FERRY_LEARN_SLOTS; i++) {
            const ferry_learn_slot *s = &l->slot[i];
            if (!s->used)
                continue;
            used++;
            ferry_learned_entry e;
            if (ferry_learn_entry(s, mode, &e))
                ferry_remember_note(r, &e);
            if (!top || s->calls > top->calls)
                top = s;
        }
        ferry_learn_summary *m = &out[d];
        m->digest = l->digest;
        if (!top)
            continue;
        m->active = 1;
        m->patterns = used;
        m->calls = top->calls;
        m->trials = top->trials;
        m->from_store = top->from_store;
        m->key = top->key;
        m->nopt = top->nopt < FERRY_LEARN_SHOWN ? top->nopt : FERRY_LEARN_SHOWN;
        for (int i = 0; i < m->nopt; i++) {
            ferry_learn_opt_name(&top->opt[i], m->opt[i].name, sizeof m->opt[i].name);
            m->opt[i].calls = top->opt[i].n;
            m->opt[i].best = top->opt[i].best;
            m->opt[i].typical = ferry_learn_typical(&top->opt[i]);
            m->opt[i].prior = top->opt[i].prior;
        }
        int c_ = top->state == FERRY_LEARN_SETTLED || top->from_store ? top->chosen : top->rule;
        ferry_learn_opt_name(&top->opt[c_], m->chosen, sizeof m->chosen);
        ferry_learn_opt_name(&top->opt[top->rule], m->rule, sizeof m->rule);
        ferry_learn_opt_name(&top->opt[top->first], m->first, sizeof m->first);
        snprintf(m->first_why, sizeof m->first_why, "%s", top->first_why);
        if (top->state == FERRY_LEARN_SETTLED || top->from_store || top->why[0])
            snprintf(m->why, sizeof m->why, "%s", top->why);
        else
            snprintf(m->why, sizeof m->why, "the rules (%.*s); %s", FERRY_RULE_WHY_MAX, top->rule_why,
                     top->calls < 2 ? "the pattern did not repeat" : "trials not finished");
    }
}
