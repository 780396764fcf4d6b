// node count_dir.js DIR > DIR/counts.tsv: the real token counts of each
// file with tiktoken's cl100k_base and o200k_base (js-tiktoken 1.0.21).
const fs=require('fs'), path=require('path');
const {getEncoding}=require('js-tiktoken');
const cl=getEncoding('cl100k_base'), o2=getEncoding('o200k_base');
const dir=process.argv[2];
console.log('# file\tcl100k_base\to200k_base (js-tiktoken 1.0.21)');
for(const f of fs.readdirSync(dir).sort()){
  if(f==='counts.tsv'||f==='README') continue;
  const t=fs.readFileSync(path.join(dir,f),'utf8');
  console.log([f,cl.encode(t,'all').length,o2.encode(t,'all').length].join('\t'));
}
