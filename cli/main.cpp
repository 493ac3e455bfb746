#include "cli/commands.h"

int main(int argc, char** argv) { return hpcsens::cli::run_cli(argc, argv); }
