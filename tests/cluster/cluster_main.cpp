// main() of the cluster test binaries: the cluster (Cluster in cluster_env.h) is set up once.
#include "cluster_env.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new hpcsens::cluster::Cluster);
  return RUN_ALL_TESTS();
}
