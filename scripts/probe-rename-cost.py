# What replacing a large output costs on a file system (ext4 forces the new
# file's blocks out when it is renamed over an existing one: auto_da_alloc):
# rename over, unlink then rename, and rename aside then unlink, 1.2 GB each.
#   python3 scripts/probe-rename-cost.py DIR
import os,time,sys
d=sys.argv[1]; data=b'A'*(64<<20)
def write(p):
    with open(p,'wb') as f:
        for i in range(19): f.write(data)
for trial in range(2):
    write(d+'/rt_old'); write(d+'/rt_new'); t=time.time(); os.rename(d+'/rt_new',d+'/rt_old'); print('1.2GB rename over existing %.3f s'%(time.time()-t))
    write(d+'/rt_new'); t=time.time(); os.unlink(d+'/rt_old'); t1=time.time(); os.rename(d+'/rt_new',d+'/rt_old'); print('unlink old %.3f s, rename %.4f s'%(t1-t,time.time()-t1))
    write(d+'/rt_new'); t=time.time(); os.rename(d+'/rt_old',d+'/rt_gone'); os.rename(d+'/rt_new',d+'/rt_old'); t1=time.time(); os.unlink(d+'/rt_gone'); print('rename aside + rename %.4f s, then unlink %.3f s'%(t1-t,time.time()-t1))
    os.unlink(d+'/rt_old')
