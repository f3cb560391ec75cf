/* pofswitch-afp: the switch over plain AF_PACKET sockets (no DPDK), e.g. on OpenWrt APs. */
#include "pof_main.h"
#include "port_afpacket.h"

int main(int argc, char **argv)
{
    return pof_main(argc, argv, &pof_afpacket_ops);
}
