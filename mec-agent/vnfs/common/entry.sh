#!/bin/sh
# Every catalog image starts here: wait until the agent has wired the vNF (it writes /run/vnf/ready after the
# interface 'in' or the vhost-user socket exists), load the parameters, then run the image's function.
while [ ! -e /run/vnf/ready ]; do sleep 0.02; done
set -a  # export the P_* parameters to run.sh
[ -f /run/vnf/params.env ] && . /run/vnf/params.env
set +a
exec /bin/sh /vnf/run.sh
