/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "generator.h"

int main(int argc, char *argv[]) {
        return gen_main(argc, argv);
}
