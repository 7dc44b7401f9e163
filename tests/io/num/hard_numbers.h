/* Decimal strings where rounding is hardest: the ends of the normal and
 * subnormal ranges, ties and near-ties between doubles, 2^53 + 1, and
 * mantissas far longer than 19 digits. Shared by the host parser's test
 * and the test that holds the device to it. */
#ifndef COLSTAT_TESTS_HARD_NUMBERS_H
#define COLSTAT_TESTS_HARD_NUMBERS_H

#include <stddef.h>

static const char *const hard_numbers[] = {
    "2.2250738585072011e-308",
    "2.2250738585072012e-308",
    "2.2250738585072014e-308",
    "4.9406564584124654e-324",
    "2.4703282292062327e-324",
    "2.4703282292062328e-324",
    "2.47032822920623272e-324",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "179769313486231580793728971405301e276",
    "9007199254740993",
    "9007199254740992.5",
    "9007199254740993.0000000000000000001",
    "4503599627370496.5",
    "4503599627370497.5",
    "9007199254740993e-1",
    "1.00000000000000011102230246251565404236316680908203125",
    "1e23",
    "8.589973e9",
    "7.3177701707893310e+15",
    "0.000000000000000000000000000001e330",
    "100000000000000000000000000000000000000e-340",
};

#define HARD_NUMBERS (sizeof hard_numbers / sizeof hard_numbers[0])

#endif
