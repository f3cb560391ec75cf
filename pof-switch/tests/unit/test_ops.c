/* The instruction and action tables (pof_instr.h) as a whole, so that a new entry is covered the day it is
 * added: every type with an entry decodes, and what it decodes encodes to bytes that decode to the same thing
 * (random bodies, many times); a type without an entry is refused by the codec; an entry without exec is
 * refused by the core, one with exec is accepted or refused with its own error class. What an entry does to a
 * packet is test_dp.c's, what its wire layout is test_codec.c's (against spec/pof/vectors). */
#include <string.h>

#include "pof_instr.h"
#include "pof_wire.h"
#include "unit.h"

#define TRIALS 2000

static uint64_t rng_state = 0x0B5ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Mostly zero bytes, some small, some anything: counts and lengths then often fit. */
static void random_body(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned r = (unsigned)(rnd() % 10);
        p[i] = r < 6 ? 0 : r < 8 ? (uint8_t)(rnd() % 8) : (uint8_t)rnd();
    }
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void test_instruction_bodies_round_trip(void)
{
    for (uint16_t type = 0; type < POFIT_TYPES + 3; type++) {
        int decoded = 0;
        for (int k = 0; k < TRIALS; k++) {
            uint8_t wire[POF_INS_SIZE], again[POF_INS_SIZE], third[POF_INS_SIZE];
            struct pof_instruction a, b;
            struct pof_status st;
            random_body(wire, sizeof(wire));
            put16(wire, type);
            put16(wire + 2, POF_INS_SIZE);
            if (pof_instr_decode(wire, &a, &st) < 0) {
                if (!pof_instr_find(type))
                    CHECK_MSG(st.type == POFET_BAD_INSTRUCTION && st.code == POFBIC_UNKNOWN_INST, "unknown type");
                continue;
            }
            CHECK_MSG(pof_instr_find(type) != NULL, "only a type with an entry decodes");
            decoded++;
            memset(again, 0, sizeof(again));
            pof_instr_encode(again, &a);
            CHECK(pof_instr_decode(again, &b, &st) == 0);
            CHECK_MSG(memcmp(&a, &b, sizeof(a)) == 0, "decode(encode(x)) == x");
            memset(third, 0, sizeof(third));
            pof_instr_encode(third, &b);
            CHECK(memcmp(again, third, sizeof(again)) == 0);
        }
        CHECK_MSG(!pof_instr_find(type) || decoded > 0, "every entry decodes some body");
    }
}

static void test_action_bodies_round_trip(void)
{
    for (uint16_t type = 0; type < POFAT_TYPES + 3; type++) {
        int decoded = 0;
        for (int k = 0; k < TRIALS; k++) {
            uint8_t wire[POF_ACTION_SIZE], again[POF_ACTION_SIZE], third[POF_ACTION_SIZE];
            struct pof_action a, b;
            struct pof_status st;
            random_body(wire, sizeof(wire));
            put16(wire, type);
            put16(wire + 2, POF_ACTION_SIZE);
            if (pof_action_decode(wire, &a, &st) < 0) {
                CHECK(st.type == POFET_BAD_ACTION);
                if (!pof_action_find(type))
                    CHECK_MSG(st.code == POFBAC_BAD_TYPE, "unknown type");
                continue;
            }
            CHECK_MSG(pof_action_find(type) != NULL, "only a type with an entry decodes");
            decoded++;
            memset(again, 0, sizeof(again));
            pof_action_encode(again, &a);
            CHECK(pof_action_decode(again, &b, &st) == 0);
            CHECK_MSG(memcmp(&a, &b, sizeof(a)) == 0, "decode(encode(x)) == x");
            memset(third, 0, sizeof(third));
            pof_action_encode(third, &b);
            CHECK(memcmp(again, third, sizeof(again)) == 0);
        }
        CHECK_MSG(!pof_action_find(type) || decoded > 0, "every entry decodes some body");
    }
}

/* Lengths beyond the fixed sizes are refused before the type is looked at. */
static void test_oversized_headers(void)
{
    uint8_t ins[POF_INS_SIZE] = {0}, act[POF_ACTION_SIZE] = {0};
    struct pof_instruction in;
    struct pof_action a;
    struct pof_status st;
    put16(ins, POFIT_METER);
    put16(ins + 2, POF_INS_SIZE + 1);
    CHECK(pof_instr_decode(ins, &in, &st) < 0 && st.code == POFBIC_BAD_LEN);
    put16(act, POFAT_DROP);
    put16(act + 2, POF_ACTION_SIZE + 1);
    CHECK(pof_action_decode(act, &a, &st) < 0 && st.code == POFBAC_BAD_LEN);
}

/* The core runs what has exec and refuses the rest, with the reference's codes. */
static void test_checks_follow_exec(void)
{
    for (uint16_t type = 0; type < POFIT_TYPES + 3; type++) {
        const struct pof_instr_ops *ops = pof_instr_find(type);
        for (int k = 0; k < TRIALS / 10; k++) {
            uint8_t wire[POF_INS_SIZE];
            struct pof_instruction in;
            struct pof_status st;
            random_body(wire, sizeof(wire));
            put16(wire, type);
            put16(wire + 2, POF_INS_SIZE);
            if (pof_instr_decode(wire, &in, &st) < 0)
                in = (struct pof_instruction){.type = type};
            int rc = pof_instr_check(&in, &st);
            if (!ops || !ops->exec)
                CHECK_MSG(rc < 0 && st.type == POFET_BAD_INSTRUCTION && st.code == POFBIC_UNSUP_INST,
                          "an instruction the core does not run is refused");
            else
                CHECK_MSG(rc == 0 || st.type == POFET_BAD_INSTRUCTION || st.type == POFET_BAD_ACTION,
                          "an instruction's check refuses with an instruction or action error");
        }
    }
    for (uint16_t type = 0; type < POFAT_TYPES + 3; type++) {
        const struct pof_action_ops *ops = pof_action_find(type);
        struct pof_action a = {.type = type};
        struct pof_status st;
        int rc = pof_dp_check_actions(&a, 1, &st);
        if (!ops || !ops->exec)
            CHECK_MSG(rc < 0 && st.type == POFET_BAD_ACTION && st.code == POFBAC_BAD_TYPE,
                      "an action the core does not run is refused");
        else
            CHECK_MSG(rc == 0 || st.type == POFET_BAD_ACTION, "an action's check refuses with an action error");
    }
}

int main(void)
{
    RUN(test_instruction_bodies_round_trip);
    RUN(test_action_bodies_round_trip);
    RUN(test_oversized_headers);
    RUN(test_checks_follow_exec);
    return unit_summary();
}
